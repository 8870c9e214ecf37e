/**
 * Golden files of apply's output (human and JSON), against the real emulator. Ids, timestamps and
 * elapsed times are normalised; parallelism 1 fixes the order of steps, and a poll interval longer
 * than the emulator's deployment makes the states seen by the poll deterministic.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const GOLDEN = join(import.meta.dirname, '../golden/apply');
const ARGS = ['--auto-approve', '--parallelism', '1', '--poll-interval', '400'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-[0-9a-f]{8})?/g;

/** Ids (and execution ids `<uuid>-<hex>`) and elapsed times vary from run to run. */
function normaliseText(s: string): string {
  return s
    .replace(UUID, '<id>')
    .replace(/after \d+s/g, 'after <n>s')
    .replace(/\[\d+s elapsed\]/g, '[<n>s elapsed]')
    .replace(/driftless-(\S+?)-\d{8}T\d{6}Z/g, 'driftless-$1-<time>');
}

/** The apply part of the human output (the plan above it is the plan renderer's golden). */
function humanApplyPart(stdout: string): string {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Plan: '));
  return normaliseText(lines.slice(start + 1).join('\n'));
}

function normaliseJsonLines(stdout: string): string {
  return (
    stdout
      .trim()
      .split('\n')
      .map((l) => {
        const e = JSON.parse(l) as Record<string, unknown>;
        e['@timestamp'] = '<timestamp>';
        e['@message'] = normaliseText(String(e['@message']));
        if ('elapsed_seconds' in e) e.elapsed_seconds = '<n>';
        if (typeof e.id === 'string') e.id = '<id>';
        return JSON.stringify(e);
      })
      .join('\n') + '\n'
  );
}

function minimal(): void {
  h.write({ 'm/driftless.yaml': readFileSync(join(import.meta.dirname, '../../examples/minimal/driftless.yaml'), 'utf8') });
}

describe('apply output', () => {
  it('human, success', async () => {
    h = await startHarness({ deployDurationMs: 1 });
    minimal();
    const r = await h.run(['apply', 'm', ...ARGS]);
    expect(r.code).toBe(0);
    await expect(humanApplyPart(r.stdout)).toMatchFileSnapshot(join(GOLDEN, 'minimal-human.txt'));
  });

  it('human, a failed deployment with its logs and the table of steps', async () => {
    h = await startHarness({ deployDurationMs: 1, failDeployGlob: 'web' });
    minimal();
    const r = await h.run(['apply', 'm', ...ARGS]);
    expect(r.code).toBe(1);
    await expect(humanApplyPart(r.stdout)).toMatchFileSnapshot(join(GOLDEN, 'minimal-failed-human.txt'));
  });

  it('json events', async () => {
    h = await startHarness({ deployDurationMs: 1 });
    minimal();
    const r = await h.run(['apply', 'm', '--json', ...ARGS]);
    expect(r.code).toBe(0);
    await expect(normaliseJsonLines(r.stdout)).toMatchFileSnapshot(join(GOLDEN, 'minimal-events.jsonl'));
  });
});
