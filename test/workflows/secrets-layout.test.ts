/**
 * Every example CI job has what it needs (issue 19): each secret and variable a job reads is where
 * the examples' own documented layout puts it, reachable from that job, and every driftless command
 * that needs DRIFTLESS_FINGERPRINT_KEY (plan with the secrets, apply, drift with the secrets) gets
 * it from there. The layout is read from the documentation itself: the table of examples/README.md
 * for GitHub (repository, or an environment that a job reaches only by naming it in
 * `environment:`), the header of examples/gitlab-ci/.gitlab-ci.yml for GitLab (a protected
 * variable reaches only the jobs of the default branch: merge requests never get it).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FINGERPRINT_KEY = 'DRIFTLESS_FINGERPRINT_KEY';

interface Place {
  kind: 'secret' | 'variable';
  /** undefined: the repository; else the environment's name. */
  environment?: string;
}

/** The GitHub layout: the rows of examples/README.md's table (name | kind | where | read by). */
export function githubLayout(readme: string): Map<string, Place> {
  const layout = new Map<string, Place>();
  for (const m of readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)`[^|]*\| (secret|variable) \| (repository|environment `([\w-]+)`) \|/gm))
    layout.set(m[1]!, { kind: m[2] as Place['kind'], ...(m[4] ? { environment: m[4] } : {}) });
  return layout;
}

/** Does this driftless command line (or action use) read secret values, hence need the fingerprint key? */
function needsKey(command: string, args: string): boolean {
  if (command === 'apply') return true;
  return (command === 'plan' || command === 'drift') && !/--no-secret-values\b/.test(args);
}

/** What is wrong with a GitHub workflow's jobs, given the layout (empty: nothing). */
export function githubProblems(workflow: string, layout: Map<string, Place>): string[] {
  const wf = parse(workflow) as { jobs: Record<string, any> };
  const problems: string[] = [];
  for (const [jobName, job] of Object.entries<any>(wf.jobs)) {
    const environment: string | undefined = typeof job.environment === 'string' ? job.environment : job.environment?.name;
    const reachable = (name: string, kind: Place['kind']) => {
      const p = layout.get(name);
      if (!p) return `${kind} ${name} is not in the documented layout`;
      if (p.kind !== kind) return `${name} is a ${p.kind}, read as a ${kind}`;
      if (p.environment !== undefined && p.environment !== environment)
        return `${kind} ${name} is in the environment '${p.environment}', and the job ${environment ? `runs in '${environment}'` : 'names no environment'}: it is empty there`;
      return undefined;
    };
    // Every secret and variable the job reads, wherever it reads it.
    const text = JSON.stringify(job);
    for (const m of text.matchAll(/\b(secrets|vars)\.([A-Za-z_][A-Za-z0-9_]*)/g)) {
      if (m[1] === 'secrets' && m[2] === 'GITHUB_TOKEN') continue;
      const why = reachable(m[2]!, m[1] === 'secrets' ? 'secret' : 'variable');
      if (why) problems.push(`${jobName}: ${why}`);
    }
    // Every driftless command that needs the key has it, from a secret the job reaches.
    for (const step of job.steps ?? []) {
      const env = { ...(job.env ?? {}), ...(step.env ?? {}) } as Record<string, string>;
      const commands: Array<[string, string]> = [];
      if (step.uses === './' || /\/driftless@/.test(String(step.uses)))
        commands.push([String(step.with?.command), `${step.with?.['no-secret-values'] === true || step.with?.['no-secret-values'] === 'true' ? '--no-secret-values ' : ''}${step.with?.['extra-args'] ?? ''}`]);
      for (const m of String(step.run ?? '').matchAll(/\bdriftless (plan|apply|drift)\b([^\n]*)/g)) commands.push([m[1]!, m[2]!]);
      for (const [command, args] of commands) {
        if (!needsKey(command, args)) continue;
        const source = /^\$\{\{\s*secrets\.(\w+)\s*\}\}$/.exec(env[FINGERPRINT_KEY] ?? '')?.[1];
        const where = `${jobName}: ${step.name ?? step.id ?? command} (driftless ${command})`;
        if (!source) problems.push(`${where} needs ${FINGERPRINT_KEY} and its env does not set it from a secret`);
        else if (reachable(source, 'secret')) problems.push(`${where} needs ${FINGERPRINT_KEY}: ${reachable(source, 'secret')}`);
      }
    }
  }
  return problems;
}

/** The GitLab layout: the CI/CD variables its header lists, protected or not. */
export function gitlabLayout(ci: string): Map<string, { protected: boolean }> {
  const layout = new Map<string, { protected: boolean }>();
  for (const m of ci.matchAll(/^#\s{2,}([A-Z][A-Z0-9_]*)\s+(protected: )?/gm)) layout.set(m[1]!, { protected: m[2] !== undefined });
  return layout;
}

/** What is wrong with the GitLab pipeline's jobs (empty: nothing). */
export function gitlabProblems(ci: string): string[] {
  const layout = gitlabLayout(ci);
  const doc = parse(ci) as Record<string, any>;
  const defined = new Set([...Object.keys(doc.variables ?? {}), 'CI_PIPELINE_SOURCE', 'CI_COMMIT_BRANCH', 'CI_DEFAULT_BRANCH', 'CI_PROJECT_ID', 'CI_MERGE_REQUEST_IID', 'CI_API_V4_URL', 'CI_JOB_URL', 'CI_COMMIT_SHA']);
  const problems: string[] = [];
  for (const [name, job] of Object.entries<any>(doc)) {
    if (!job || typeof job !== 'object' || !job.script) continue;
    // A job that may run in a merge-request pipeline runs on an unprotected ref: no protected variable.
    const rules = (job.rules ?? []) as Array<{ if?: string }>;
    const protectedRef = rules.length > 0 && rules.every((r) => !/merge_request_event/.test(r.if ?? ''));
    const jobVars = new Set(Object.keys(job.variables ?? {}));
    const text = JSON.stringify({ variables: job.variables, before_script: job.before_script ?? doc.default?.before_script, script: job.script });
    const reaches = (v: string) => defined.has(v) || jobVars.has(v) || (layout.has(v) && (!layout.get(v)!.protected || protectedRef));
    for (const m of text.matchAll(/\$\{?([A-Z][A-Z0-9_]*)\}?/g)) {
      const v = m[1]!;
      if (defined.has(v) || jobVars.has(v)) continue;
      if (!layout.has(v)) problems.push(`${name}: $${v} is not in the documented layout`);
      else if (!reaches(v)) problems.push(`${name}: $${v} is protected and the job runs on merge requests: it is empty there`);
    }
    for (const line of job.script as string[])
      for (const m of line.matchAll(/\bdriftless (plan|apply|drift)\b([^;&|]*)/g))
        if (needsKey(m[1]!, m[2]!) && !reaches(FINGERPRINT_KEY)) problems.push(`${name}: driftless ${m[1]} needs ${FINGERPRINT_KEY}, which this job does not get`);
  }
  return problems;
}

describe('every example workflow has what it needs, in the layout the examples document', () => {
  const readme = readFileSync(path.join(ROOT, 'examples/README.md'), 'utf8');
  const layout = githubLayout(readme);
  const dir = path.join(ROOT, 'examples/github-actions');
  const workflows = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
  const gitlab = readFileSync(path.join(ROOT, 'examples/gitlab-ci/.gitlab-ci.yml'), 'utf8');

  it('the documented GitHub layout names the API URL, both tokens and the fingerprint key', () => {
    expect(Object.fromEntries(layout)).toMatchObject({
      DRIFTLESS_API_URL: { kind: 'variable' },
      DRIFTLESS_API_TOKEN_READ: { kind: 'secret' },
      DRIFTLESS_API_TOKEN_WRITE: { kind: 'secret', environment: 'production' },
      DRIFTLESS_FINGERPRINT_KEY: { kind: 'secret', environment: 'production' },
    });
    expect(workflows.sort()).toEqual(['apply.yml', 'drift.yml', 'plan.yml', 'preview.yml']);
  });

  it.each(['apply.yml', 'drift.yml', 'plan.yml', 'preview.yml'])('%s: every job reaches each secret it reads, and every command that needs the fingerprint key gets it', (name) => {
    expect(githubProblems(readFileSync(path.join(dir, name), 'utf8'), layout)).toEqual([]);
  });

  it('GitLab: every job reaches each variable it reads, and every command that needs the fingerprint key gets it', () => {
    expect([...gitlabLayout(gitlab).keys()]).toEqual(expect.arrayContaining(['DRIFTLESS_API_URL', 'DRIFTLESS_API_TOKEN_READ', 'DRIFTLESS_API_TOKEN_WRITE', FINGERPRINT_KEY]));
    expect(gitlabProblems(gitlab)).toEqual([]);
  });

  it('finds what is missing (so the checks above can fail): a drift job without its environment, a key not set, a protected variable on merge requests', () => {
    const drift = readFileSync(path.join(dir, 'drift.yml'), 'utf8');
    const noEnvironment = drift.replace(/^ {4}environment: production\n/m, '');
    expect(noEnvironment).not.toBe(drift);
    expect(githubProblems(noEnvironment, layout).join('\n')).toMatch(/drift: secret DRIFTLESS_FINGERPRINT_KEY is in the environment 'production', and the job names no environment/);
    const noKey = drift.replace(/^ +DRIFTLESS_FINGERPRINT_KEY: .*\n/m, '');
    expect(githubProblems(noKey, layout).join('\n')).toContain('Detect drift (driftless drift) needs DRIFTLESS_FINGERPRINT_KEY and its env does not set it');
    // A drift that reads no secret needs no key.
    expect(githubProblems(noKey.replace('command: drift', 'command: drift\n          extra-args: --no-secret-values'), layout)).toEqual([]);
    const mrWithWrite = gitlab.replace('DRIFTLESS_API_TOKEN: $DRIFTLESS_API_TOKEN_READ\n  script:\n    - rm -rf plan-md', 'DRIFTLESS_API_TOKEN: $DRIFTLESS_API_TOKEN_WRITE\n  script:\n    - rm -rf plan-md');
    expect(mrWithWrite).not.toBe(gitlab);
    expect(gitlabProblems(mrWithWrite)).toEqual(['driftless-plan: $DRIFTLESS_API_TOKEN_WRITE is protected and the job runs on merge requests: it is empty there']);
    const mrWithSecrets = gitlab.replace('driftless plan "$MANIFEST_DIR" --no-secret-values --out', 'driftless plan "$MANIFEST_DIR" --out');
    expect(gitlabProblems(mrWithSecrets)).toEqual([`driftless-plan: driftless plan needs ${FINGERPRINT_KEY}, which this job does not get`]);
  });
});
