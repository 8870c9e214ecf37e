'use strict';
/**
 * The pull-request comments of the driftless GitHub Action (../action.yml): ONE comment per
 * markdown part of the plan (`part-1.md` ... `part-N.md`), each found again on the next run by a
 * hidden marker and updated in place; parts left over from a previous, longer plan are deleted.
 * When the plan failed, run.mjs leaves a single part that says so: the comments then show the
 * failure, never a stale plan.
 *
 * Run by actions/github-script (which provides `github`, an authenticated Octokit, `context` and
 * `core`); CommonJS because github-script loads it with require(). `planCommentSync` is pure.
 */
const fs = require('node:fs');
const path = require('node:path');

/** GitHub's limit for one comment body. */
const COMMENT_LIMIT = 65536;
const MARKER = /^<!-- driftless-plan:(.*) part (\d+) -->\n/;

/**
 * The key that tells apart the plans of several manifests in one pull request (one set of comments
 * each): written inside an HTML comment, so nothing that could end it (`--`, `>`) is kept.
 */
function commentKey(raw) {
  return String(raw || '.').replace(/[^A-Za-z0-9._/ -]/g, '_').replace(/-{2,}/g, '-').trim() || '.';
}

function markerOf(key, index) {
  return `<!-- driftless-plan:${key} part ${index} -->\n`;
}

/** The bodies of `dir`'s part-N.md files, in order. */
function readParts(dir) {
  if (!dir || !fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((name) => ({ name, n: /^part-(\d+)\.md$/.exec(name)?.[1] }))
    .filter((p) => p.n !== undefined)
    .sort((a, b) => Number(a.n) - Number(b.n))
    .map((p) => fs.readFileSync(path.join(dir, p.name), 'utf8'));
}

/**
 * What to create, update and delete so that the pull request shows exactly `parts` under `key`.
 * `existing`: the comments of the pull request written by the action's author ({id, body}), in
 * the order GitHub lists them. Comments of another key are left alone; an unchanged part is not
 * touched (no notification); a part number seen twice keeps the first and deletes the other.
 */
function planCommentSync(existing, parts, key) {
  const byIndex = new Map();
  const leftOver = [];
  for (const c of existing) {
    const m = MARKER.exec(c.body ?? '');
    if (!m || m[1] !== key) continue;
    const index = Number(m[2]);
    if (index >= 1 && index <= parts.length && !byIndex.has(index)) byIndex.set(index, c);
    else leftOver.push(c);
  }
  const ops = [];
  parts.forEach((text, k) => {
    const index = k + 1;
    const body = fitBody(markerOf(key, index) + text, index, parts.length);
    const current = byIndex.get(index);
    if (!current) ops.push({ op: 'create', index, body });
    else if (current.body !== body) ops.push({ op: 'update', index, id: current.id, body });
  });
  for (const c of leftOver) ops.push({ op: 'delete', id: c.id });
  return ops;
}

/** A part over GitHub's limit would be refused: say so in its place instead of failing the job. */
function fitBody(body, index, count) {
  if (body.length <= COMMENT_LIMIT) return body;
  const marker = MARKER.exec(body)[0];
  return `${marker}Part ${index} of ${count} of the plan is ${body.length} characters, over GitHub's ${COMMENT_LIMIT}-character limit for a comment: see the job summary of this run.\n`;
}

/** Applies the sync to the pull request of `context`. Returns the ops it made. */
async function syncPlanComments({ github, context, core, dir, key, author }) {
  const issue_number = context.payload.pull_request?.number ?? context.issue.number;
  const { owner, repo } = context.repo;
  const parts = readParts(dir);
  if (parts.length === 0) {
    core.warning(`driftless: no markdown part in ${dir}: the pull request's comments are left as they are`);
    return [];
  }
  const k = commentKey(key);
  try {
    const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number, per_page: 100 });
    const mine = comments.filter((c) => c.user?.login === author);
    const ops = planCommentSync(mine, parts, k);
    for (const op of ops) {
      if (op.op === 'create') {
        const r = await github.rest.issues.createComment({ owner, repo, issue_number, body: op.body });
        if (op.index === 1) core.setOutput('comment-url', r.data.html_url);
      } else if (op.op === 'update') {
        const r = await github.rest.issues.updateComment({ owner, repo, comment_id: op.id, body: op.body });
        if (op.index === 1) core.setOutput('comment-url', r.data.html_url);
      } else {
        await github.rest.issues.deleteComment({ owner, repo, comment_id: op.id });
      }
    }
    const first = mine.find((c) => MARKER.exec(c.body ?? '')?.[1] === k && MARKER.exec(c.body)[2] === '1');
    if (first && !ops.some((o) => o.index === 1)) core.setOutput('comment-url', first.html_url);
    core.info(`driftless: ${parts.length} plan comment(s) on #${issue_number}: ${ops.filter((o) => o.op === 'create').length} created, ${ops.filter((o) => o.op === 'update').length} updated, ${ops.filter((o) => o.op === 'delete').length} deleted`);
    return ops;
  } catch (e) {
    // A pull request from a fork gets a read-only token: the plan stays in the job summary.
    if (e && (e.status === 403 || e.status === 404)) {
      core.warning(`driftless: cannot comment on #${issue_number} (${e.status}: the token has no pull-requests: write, as for a pull request from a fork); the plan is in the job summary`);
      return [];
    }
    throw e;
  }
}

// ---- the preview comment ---------------------------------------------------------------------

/**
 * `command: preview`: ONE comment per pull request (and key) with the preview's URLs, found again
 * by its marker and updated in place on every push; when the preview is taken down, the same
 * comment says so with its URLs struck through. `previewCommentBody` and `previewCommentOp` are pure.
 */
const PREVIEW_MARKER = /^<!-- driftless-preview:(.*) -->\n/;

function previewMarkerOf(key) {
  return `<!-- driftless-preview:${key} -->\n`;
}

/** Text from the manifest or the API in a table cell: nothing in it is markup. */
function cellText(s) {
  return String(s).replace(/[\\`*_[\]<>|#~]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
}

/** A URL as a link GitHub renders, or, when it is not a plain https URL, as inert text. */
function urlCell(u) {
  return /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?(\/[^\s<>|`\]\[()]*)?$/.test(String(u)) ? String(u) : cellText(u);
}

/**
 * The comment's body: `result` is preview's JSON output ({environment, created, urls} for up,
 * {environment, deleted} for down), `previous` the comment as it was (its URLs are struck through
 * when the preview is gone), `failed` the exit code of a failed run.
 */
function previewCommentBody({ key, action, result, previous, sha, failed, runUrl }) {
  const marker = previewMarkerOf(key);
  const env = result && result.environment ? cellText(result.environment) : '';
  const log = runUrl ? ` The [run's log](${runUrl}) has every line.` : '';
  if (failed !== undefined) {
    const kept = previous ? previous.replace(PREVIEW_MARKER, '').replace(/^> \*\*driftless preview .*\n\n/, '') : '';
    return `${marker}> **driftless preview ${action} failed** (exit code ${failed})${sha ? ` for ${cellText(String(sha).slice(0, 12))}` : ''}.${log}\n\n${kept}`;
  }
  if (action === 'down') {
    const rows = previous ? [...previous.matchAll(/^\| (?!service \|)(?!---)(.*) \| (.*) \|$/gm)].map((m) => `| ~~${unstruck(m[1])}~~ | ~~${unstruck(m[2])}~~ |`) : [];
    const name = env || (previous && /Preview `([^`]*)`/.exec(previous)?.[1]) || 'the preview';
    const lines = [marker + `### ~~Preview \`${name}\`~~`, '', `Deleted: the pull request was closed.`];
    if (rows.length) lines.push('', '| service | URL |', '|---|---|', ...rows);
    return `${lines.join('\n')}\n`;
  }
  const urls = Array.isArray(result && result.urls) ? result.urls : [];
  const lines = [marker + `### Preview \`${env}\``, ''];
  lines.push(`${result && result.created ? 'Created' : 'Updated'}${sha ? ` for ${cellText(String(sha).slice(0, 12))}` : ''}.`);
  if (urls.length) lines.push('', '| service | URL |', '|---|---|', ...urls.map((u) => `| ${cellText(u.service)} | ${urlCell(u.url)} |`));
  else lines.push('', 'No service of the preview has a public port.');
  return `${lines.join('\n')}\n`;
}

/** A cell struck through already (a second `down`) is struck once. */
function unstruck(cell) {
  return cell.replace(/^~~(.*)~~$/, '$1');
}

/** What to do so that the pull request shows `body` as the preview comment of `key`. */
function previewCommentOp(existing, key, body, action) {
  const mine = existing.filter((c) => PREVIEW_MARKER.exec(c.body ?? '')?.[1] === key);
  const current = mine[0];
  const extra = mine.slice(1).map((c) => ({ op: 'delete', id: c.id }));
  // Down without a comment: there is nothing to strike through, and no preview to announce.
  if (!current) return action === 'down' ? extra : [{ op: 'create', body }, ...extra];
  if (current.body === body) return extra;
  return [{ op: 'update', id: current.id, body }, ...extra];
}

/** Applies the preview comment to the pull request of `context`. Returns the ops it made. */
async function syncPreviewComment({ github, context, core, file, action, exitCode, key, author, sha, runUrl }) {
  const issue_number = context.payload.pull_request?.number ?? context.issue.number;
  const { owner, repo } = context.repo;
  const k = commentKey(key);
  let result;
  try {
    result = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    result = undefined;
  }
  const failed = String(exitCode) === '0' ? undefined : String(exitCode || 'none');
  try {
    const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number, per_page: 100 });
    const mine = comments.filter((c) => c.user?.login === author);
    const previous = mine.find((c) => PREVIEW_MARKER.exec(c.body ?? '')?.[1] === k)?.body;
    const body = previewCommentBody({ key: k, action, result, previous, sha, failed, runUrl });
    const ops = previewCommentOp(mine, k, body, action);
    for (const op of ops) {
      if (op.op === 'create') core.setOutput('comment-url', (await github.rest.issues.createComment({ owner, repo, issue_number, body: op.body })).data.html_url);
      else if (op.op === 'update') core.setOutput('comment-url', (await github.rest.issues.updateComment({ owner, repo, comment_id: op.id, body: op.body })).data.html_url);
      else await github.rest.issues.deleteComment({ owner, repo, comment_id: op.id });
    }
    core.info(`driftless: preview comment on #${issue_number}: ${ops.map((o) => o.op).join(', ') || 'unchanged'}`);
    return ops;
  } catch (e) {
    if (e && (e.status === 403 || e.status === 404)) {
      core.warning(`driftless: cannot comment on #${issue_number} (${e.status}: the token has no pull-requests: write); the preview's URLs are in the job summary`);
      return [];
    }
    throw e;
  }
}

module.exports = { COMMENT_LIMIT, commentKey, planCommentSync, readParts, syncPlanComments, previewCommentBody, previewCommentOp, syncPreviewComment };
