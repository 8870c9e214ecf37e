/**
 * The realistic example in a harness directory, with its secrets, and the census a fault-free
 * apply of it produces (what every chaos run must end with).
 */
import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startHarness, type Harness } from '../e2e/helpers.js';
import { census, type Census } from './census.js';

export const EXAMPLE = resolve(import.meta.dirname, '../../examples/realistic');

/** Unique random secrets (a canary can search for them). */
export function secretEnv(): Record<string, string> {
  const r = () => randomBytes(12).toString('hex');
  return {
    STRIPE_API_KEY: `sk_canary_${r()}`,
    SESSION_SECRET: `session_canary_${r()}`,
    SLACK_WEBHOOK_URL: `https://hooks.slack.com/services/T000/B000/canary${r()}`,
    WEBHOOK_SIGNING_SECRET: `whsec_canary_${r()}`,
  };
}

export function copyRealistic(h: Harness, as = 'realistic'): string {
  cpSync(EXAMPLE, join(h.dir, as), { recursive: true });
  return as;
}

let reference: Census | undefined;
/** What one fault-free apply of the realistic example creates (computed once per test file). */
export async function referenceCensus(): Promise<Census> {
  if (reference) return reference;
  const h = await startHarness();
  try {
    copyRealistic(h);
    const r = await h.run(['apply', 'realistic', '--auto-approve', '--poll-interval', '40'], { env: secretEnv() });
    if (r.code !== 0) throw new Error(`reference apply failed:\n${r.stdout}\n${r.stderr}`);
    reference = await census(h.emu.url, h.emu.tokens.ADMIN);
    return reference;
  } finally {
    await h.close();
  }
}
