#!/usr/bin/env node
/**
 * Keeps a driftless plan on a GitLab merge request as ONE note per markdown part: each note is
 * found again on the next pipeline by a hidden marker and updated in place (an unchanged part is
 * not touched), parts left over from a previous, longer plan are deleted, and a failed plan
 * replaces them all with one note that says so, so a note is never stale. The same behaviour as
 * the GitHub Action's comments (action/comments.cjs), standalone so that it can be copied.
 *
 *   node driftless-mr-notes.mjs PARTS_DIR STDOUT_FILE EXIT_CODE
 *
 * PARTS_DIR holds part-1.md ... part-N.md (`driftless plan --format markdown --split-dir`);
 * STDOUT_FILE is plan's standard output (its diagnostics when it failed); EXIT_CODE is plan's.
 * Environment: CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID, CI_JOB_URL (set by GitLab),
 * DRIFTLESS_NOTES_TOKEN (a project access token with the api scope: the CI job token cannot write
 * notes), DRIFTLESS_NOTES_KEY (optional: tells apart the plans of several manifests; default
 * MANIFEST_DIR). Node 20 built-ins only.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const [dir, stdoutFile, exitCodeArg] = process.argv.slice(2);
const env = process.env;
const exitCode = Number(exitCodeArg);
const key = String(env.DRIFTLESS_NOTES_KEY || env.MANIFEST_DIR || '.').replace(/[^A-Za-z0-9._/ -]/g, '_').replace(/-{2,}/g, '-');
const MARKER = /^<!-- driftless-plan:(.*) part (\d+) -->\n/;
const markerOf = (index) => `<!-- driftless-plan:${key} part ${index} -->\n`;

function fail(message) {
  process.stderr.write(`driftless-mr-notes: ${message}\n`);
  process.exit(1);
}

for (const name of ['CI_API_V4_URL', 'CI_PROJECT_ID', 'CI_MERGE_REQUEST_IID', 'DRIFTLESS_NOTES_TOKEN']) if (!env[name]) fail(`${name} is not set (this script runs in a merge-request pipeline; DRIFTLESS_NOTES_TOKEN is a project access token with the api scope)`);
if (!dir || !stdoutFile || !Number.isInteger(exitCode)) fail('usage: node driftless-mr-notes.mjs PARTS_DIR STDOUT_FILE EXIT_CODE');

/** The notes to show: the parts, or one note with the failure. */
function partsToShow() {
  const stdout = existsSync(stdoutFile) ? readFileSync(stdoutFile, 'utf8') : '';
  if (exitCode !== 0 && exitCode !== 2) {
    const log = env.CI_JOB_URL ? ` The [job's log](${env.CI_JOB_URL}) has every line.` : '';
    return [`### ❌ driftless plan failed\n\nThere is no plan to review: driftless exited with code ${exitCode}.${log}\n\n${stdout.trim()}\n`];
  }
  const parts = existsSync(dir)
    ? readdirSync(dir)
        .map((name) => ({ name, n: /^part-(\d+)\.md$/.exec(name)?.[1] }))
        .filter((p) => p.n !== undefined)
        .sort((a, b) => Number(a.n) - Number(b.n))
        .map((p) => readFileSync(path.join(dir, p.name), 'utf8'))
    : [];
  return parts.length ? parts : [stdout];
}

const api = `${env.CI_API_V4_URL}/projects/${encodeURIComponent(env.CI_PROJECT_ID)}/merge_requests/${env.CI_MERGE_REQUEST_IID}/notes`;
async function request(method, url, body) {
  const r = await fetch(url, {
    method,
    headers: { 'PRIVATE-TOKEN': env.DRIFTLESS_NOTES_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  // The token is never printed: only the method, the path and GitLab's status.
  if (!r.ok) fail(`${method} ${new URL(url).pathname} answered ${r.status} ${r.statusText}`);
  return r.status === 204 ? undefined : r.json();
}

const me = await request('GET', `${env.CI_API_V4_URL}/user`);
const notes = [];
for (let page = '1'; page; ) {
  const r = await fetch(`${api}?sort=asc&order_by=created_at&per_page=100&page=${page}`, { headers: { 'PRIVATE-TOKEN': env.DRIFTLESS_NOTES_TOKEN } });
  if (!r.ok) fail(`GET ${new URL(api).pathname} answered ${r.status} ${r.statusText}`);
  notes.push(...(await r.json()));
  page = r.headers.get('x-next-page');
}

const parts = partsToShow();
const byIndex = new Map();
const leftOver = [];
for (const n of notes) {
  const m = MARKER.exec(n.body ?? '');
  if (n.author?.id !== me.id || !m || m[1] !== key) continue;
  const index = Number(m[2]);
  if (index >= 1 && index <= parts.length && !byIndex.has(index)) byIndex.set(index, n);
  else leftOver.push(n);
}
let created = 0;
let updated = 0;
for (const [k, text] of parts.entries()) {
  const body = markerOf(k + 1) + text;
  const note = byIndex.get(k + 1);
  if (!note) (await request('POST', api, { body }), created++);
  else if (note.body !== body) (await request('PUT', `${api}/${note.id}`, { body }), updated++);
}
for (const n of leftOver) await request('DELETE', `${api}/${n.id}`);
process.stdout.write(`driftless-mr-notes: ${parts.length} note(s) on !${env.CI_MERGE_REQUEST_IID}: ${created} created, ${updated} updated, ${leftOver.length} deleted\n`);
