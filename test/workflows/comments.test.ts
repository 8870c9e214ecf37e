/**
 * The action's pull-request comments (action/comments.cjs): one comment per markdown part, updated
 * in place on the next push, parts left over from a longer plan deleted, a failure replacing them,
 * and nobody else's comments touched. GitHub cannot be reached from here: `github` is an in-memory
 * pull request with the calls actions/github-script's Octokit offers (paginate, rest.issues.*),
 * which keeps the comments in creation order and refuses what GitHub refuses.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, commentKey, planCommentSync, syncPlanComments, type Comment } from '../../action/comments.cjs';
import { tempDir } from '../export/helpers.js';

const BOT = 'github-actions[bot]';

/** A pull request's comments, as GitHub's REST API keeps them. */
function fakePullRequest(options: { readOnly?: boolean } = {}) {
  let nextId = 100;
  const comments: Comment[] = [];
  const calls: string[] = [];
  const refuse = () => Object.assign(new Error('Resource not accessible by integration'), { status: 403 });
  const github = {
    paginate: async (fn: (p: any) => Promise<{ data: Comment[] }>, params: any) => (await fn(params)).data,
    rest: {
      issues: {
        listComments: async ({ issue_number }: any) => {
          expect(issue_number).toBe(7);
          return { data: comments.map((c) => ({ ...c })) };
        },
        createComment: async ({ issue_number, body }: any) => {
          if (options.readOnly) throw refuse();
          expect(issue_number).toBe(7);
          if (body.length > COMMENT_LIMIT) throw Object.assign(new Error('body is too long'), { status: 422 });
          const c = { id: nextId++, body, user: { login: BOT }, html_url: `https://github.com/acme/infra/pull/7#issuecomment-${nextId}` };
          comments.push(c);
          calls.push(`create ${c.id}`);
          return { data: c };
        },
        updateComment: async ({ comment_id, body }: any) => {
          const c = comments.find((x) => x.id === comment_id);
          if (!c) throw Object.assign(new Error('Not Found'), { status: 404 });
          if (c.user?.login !== BOT) throw refuse();
          c.body = body;
          calls.push(`update ${comment_id}`);
          return { data: c };
        },
        deleteComment: async ({ comment_id }: any) => {
          const i = comments.findIndex((x) => x.id === comment_id);
          if (i < 0) throw Object.assign(new Error('Not Found'), { status: 404 });
          comments.splice(i, 1);
          calls.push(`delete ${comment_id}`);
          return { data: {} };
        },
      },
    },
  };
  const logs: string[] = [];
  const outputs: Record<string, string> = {};
  const core = { info: (m: string) => logs.push(m), warning: (m: string) => logs.push(`warning: ${m}`), setOutput: (k: string, v: string) => (outputs[k] = v) };
  const context = { repo: { owner: 'acme', repo: 'infra' }, payload: { pull_request: { number: 7 } }, issue: { number: 7 } };
  return { github, core, context, comments, calls, logs, outputs };
}

const tmp = tempDir('driftless-comments-');
afterEach(() => tmp.cleanup());

function writeParts(name: string, parts: string[]): string {
  const dir = path.join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  parts.forEach((p, i) => writeFileSync(path.join(dir, `part-${i + 1}.md`), p));
  return dir;
}

describe('pull-request comments, one per markdown part', () => {
  it('posts one comment per part in order, leaves them alone when nothing changed, updates only the changed part', async () => {
    const pr = fakePullRequest();
    const sync = (dir: string) => syncPlanComments({ ...pr, dir, key: 'infra', author: BOT });
    // part-10 sorts after part-2.
    const parts = Array.from({ length: 10 }, (_, i) => `plan part ${i + 1}`);
    await sync(writeParts('first', parts));
    expect(pr.comments.map((c) => c.body)).toEqual(parts.map((p, i) => `<!-- driftless-plan:infra part ${i + 1} -->\n${p}`));
    expect(pr.outputs['comment-url']).toMatch(/issuecomment-/);

    pr.calls.length = 0;
    expect(await sync(writeParts('same', parts))).toEqual([]);
    expect(pr.calls).toEqual([]);

    const changed = [...parts];
    changed[3] = 'plan part 4, changed';
    await sync(writeParts('changed', changed));
    expect(pr.calls).toEqual([`update ${pr.comments[3]!.id}`]);
    expect(pr.comments[3]!.body).toContain('plan part 4, changed');
  });

  it('a shorter plan deletes the parts left over from the longer one; a failure leaves one comment that says so', async () => {
    const pr = fakePullRequest();
    const sync = (dir: string) => syncPlanComments({ ...pr, dir, key: 'infra', author: BOT });
    await sync(writeParts('long', ['a', 'b', 'c']));
    await sync(writeParts('short', ['a', 'B']));
    expect(pr.comments.map((c) => c.body!.split('\n')[1])).toEqual(['a', 'B']);
    await sync(writeParts('failed', ['### ❌ driftless plan failed']));
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]!.body).toContain('driftless plan failed');
  });

  it("leaves other people's comments, and the plans of other manifests, alone", async () => {
    const pr = fakePullRequest();
    pr.comments.push({ id: 1, body: '<!-- driftless-plan:infra part 2 -->\nforged by a user', user: { login: 'mallory' } });
    await syncPlanComments({ ...pr, dir: writeParts('staging', ['s1', 's2']), key: 'staging', author: BOT });
    await syncPlanComments({ ...pr, dir: writeParts('prod', ['p1']), key: 'prod', author: BOT });
    await syncPlanComments({ ...pr, dir: writeParts('staging2', ['s1']), key: 'staging', author: BOT });
    expect(pr.comments.map((c) => c.body)).toEqual([
      '<!-- driftless-plan:infra part 2 -->\nforged by a user',
      '<!-- driftless-plan:staging part 1 -->\ns1',
      '<!-- driftless-plan:prod part 1 -->\np1',
    ]);
  });

  it('a part over GitHub\'s limit becomes a note instead of a refused request', async () => {
    const pr = fakePullRequest();
    await syncPlanComments({ ...pr, dir: writeParts('huge', ['x'.repeat(COMMENT_LIMIT)]), key: 'infra', author: BOT });
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]!.body).toMatch(/over GitHub's 65536-character limit/);
  });

  it('a read-only token (a pull request from a fork) is a warning, not a failed job', async () => {
    const pr = fakePullRequest({ readOnly: true });
    expect(await syncPlanComments({ ...pr, dir: writeParts('p', ['a']), key: 'infra', author: BOT })).toEqual([]);
    expect(pr.logs.join('\n')).toMatch(/warning: driftless: cannot comment on #7 \(403/);
  });

  it('the key cannot end the HTML comment that holds it', () => {
    expect(commentKey('infra/prod')).toBe('infra/prod');
    expect(commentKey('a-->b<!--c')).not.toMatch(/--|>|</);
    expect(commentKey('')).toBe('.');
  });

  it('planCommentSync: a duplicated part number keeps the first and deletes the other', () => {
    const mk = (id: number, n: number, text: string) => ({ id, body: `<!-- driftless-plan:k part ${n} -->\n${text}`, user: { login: BOT } });
    expect(planCommentSync([mk(1, 1, 'a'), mk(2, 1, 'a'), mk(3, 2, 'b')], ['a'], 'k')).toEqual([
      { op: 'delete', id: 2 },
      { op: 'delete', id: 3 },
    ]);
  });
});
