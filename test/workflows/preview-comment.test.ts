/**
 * The preview comment's body and operations (action/comments.cjs): the URLs table, a failed run
 * said on top of the last known URLs, a second `down` striking nothing twice, names from the
 * manifest never read as markup, and one comment per key.
 */
import { describe, expect, it } from 'vitest';
import { previewCommentBody, previewCommentOp } from '../../action/comments.cjs';

const up = { environment: 'pr-5', created: true, urls: [{ service: 'api', url: 'https://a.example' }] };

describe('the preview comment', () => {
  it('lists the URLs, says a failed run above them, and strikes them once when the preview is gone', () => {
    const first = previewCommentBody({ key: 'shop', action: 'up', result: up, sha: 'abcdef1234567890' });
    expect(first).toBe('<!-- driftless-preview:shop -->\n### Preview `pr-5`\n\nCreated for abcdef123456.\n\n| service | URL |\n|---|---|\n| api | https://a.example |\n');
    const failed = previewCommentBody({ key: 'shop', action: 'up', result: undefined, previous: first, sha: 'bbbbbbb', failed: '1', runUrl: 'https://github.com/acme/infra/actions/runs/9' });
    expect(failed).toMatch(/^<!-- driftless-preview:shop -->\n> \*\*driftless preview up failed\*\* \(exit code 1\) for bbbbbbb\. The \[run's log\]\(https:\/\/github\.com\/acme\/infra\/actions\/runs\/9\) has every line\.\n\n### Preview `pr-5`/);
    // A second failure does not pile up notices.
    expect(previewCommentBody({ key: 'shop', action: 'up', previous: failed, failed: '1' }).match(/failed/g)).toHaveLength(1);
    const down = previewCommentBody({ key: 'shop', action: 'down', result: { environment: 'pr-5', deleted: true }, previous: first });
    expect(down).toContain('### ~~Preview `pr-5`~~');
    expect(down).toContain('| ~~api~~ | ~~https://a.example~~ |');
    expect(previewCommentBody({ key: 'shop', action: 'down', result: { environment: 'pr-5', deleted: false }, previous: down })).toBe(down);
  });

  it('escapes names and refuses to link anything but a plain https URL', () => {
    const body = previewCommentBody({ key: 'k', action: 'up', result: { environment: 'pr-1', created: false, urls: [{ service: 'a|b<img>', url: 'javascript:alert(1)' }] } });
    expect(body).toContain('| a\\|b\\<img\\> | javascript:alert(1) |');
    expect(body).not.toMatch(/<img>/);
  });

  it('creates one comment, updates it, leaves an equal one alone, never creates one for a down', () => {
    const body = previewCommentBody({ key: 'shop', action: 'up', result: up });
    expect(previewCommentOp([], 'shop', body, 'up')).toEqual([{ op: 'create', body }]);
    expect(previewCommentOp([], 'shop', body, 'down')).toEqual([]);
    const mine = { id: 3, body: '<!-- driftless-preview:shop -->\nold' };
    const other = { id: 4, body: '<!-- driftless-preview:blog -->\nother key' };
    expect(previewCommentOp([mine, other], 'shop', body, 'up')).toEqual([{ op: 'update', id: 3, body }]);
    expect(previewCommentOp([{ id: 3, body }, other], 'shop', body, 'up')).toEqual([]);
  });
});
