/** Pure helpers of the benchmark: the request budget of issue 6 and the reading of request logs. */

/** Issue 6: a no-op plan makes at most 1 request per service with variables + 3 per environment + 2 per project + 8. */
export function requestBudget(size) {
  const envs = size.projects * size.environments;
  return envs * size.services + 3 * envs + 2 * size.projects + 8;
}

/**
 * Issue 13: a plan with `--target` of one environment reads at most that environment's reads (its
 * services, statuses and stages lists, one variable list per service) plus 10.
 */
export function targetBudget(size) {
  return size.services + 3 + 10;
}

/**
 * Splits an apply's request log (entries `[startMs, durationMs, 'METHOD /route/{id}', status]`,
 * in arrival order): reads before the first write (the plan), writes, deploy requests, status
 * polls, other reads, and the phases' durations.
 */
export function analyseLog(entries) {
  const isWrite = ([, , route]) => !route.startsWith('GET ');
  const isDeploy = ([, , route]) => /^POST .*\/(deploy|redeploy)$/.test(route);
  const isPoll = ([, , route]) => route === 'GET /environment/{id}/statuses';
  const firstWrite = entries.findIndex(isWrite);
  const planReads = firstWrite < 0 ? entries.length : firstWrite;
  const rest = firstWrite < 0 ? [] : entries.slice(firstWrite);
  const deploys = rest.filter(isDeploy);
  const writes = rest.filter((e) => isWrite(e) && !isDeploy(e));
  const polls = rest.filter(isPoll);
  const otherReads = rest.filter((e) => !isWrite(e) && !isPoll(e));
  const firstDeploy = rest.find(isDeploy);
  const last = entries[entries.length - 1];
  // The log replaces ids by {id}, so the gap is over all polls: with one environment deploying it
  // is that environment's poll interval; with several it is a lower bound of each one's.
  let minGap = null;
  for (let i = 1; i < polls.length; i++) {
    const gap = polls[i][0] - polls[i - 1][0];
    minGap = minGap === null ? gap : Math.min(minGap, gap);
  }
  const first = entries[0];
  return {
    requests: entries.length,
    planReads,
    writes: writes.length,
    deployRequests: deploys.length,
    polls: polls.length,
    otherReads: otherReads.length,
    minPollGapMs: minGap,
    readPhaseMs: first && firstWrite > 0 ? entries[firstWrite][0] - first[0] : null,
    writePhaseMs: firstWrite >= 0 && firstDeploy ? firstDeploy[0] - entries[firstWrite][0] : null,
    deployPhaseMs: firstDeploy && last ? last[0] + last[1] - firstDeploy[0] : null,
    status429: entries.filter((e) => e[3] === 429).length,
    writeRoutes: countBy(writes.map((e) => e[2])),
  };
}

export function countBy(xs) {
  const m = {};
  for (const x of xs) m[x] = (m[x] ?? 0) + 1;
  return m;
}
