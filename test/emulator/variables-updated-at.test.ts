/**
 * `updated_at` changes on every write of a variable, even when two writes fall in the same
 * millisecond (the clock is held here): the reconciler relies on it to notice out-of-band edits of
 * secrets, whose values it cannot read.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startClient, type Client } from './helpers.js';

const clock = { ms: Date.parse('2026-01-01T00:00:00.000Z'), now: () => new Date(clock.ms) };
let c: Client;

beforeAll(async () => {
  c = await startClient({ clock });
});
afterAll(async () => c.em.close());

test('each edit of a secret moves updated_at forward, without revealing the value', async () => {
  const project = (await c.post(`/organization/${c.em.organizationId}/project`, { name: 'clock' })).body;
  const created = await c.post('/variable', { key: 'TOKEN', value: 'v1', is_secret: true, variable_scope: 'PROJECT', variable_parent_id: project.id });
  expect(created.status).toBe(201);
  const stamps = [created.body.updated_at];
  for (const value of ['v2', 'v3', 'v3']) {
    const r = await c.put(`/variable/${created.body.id}`, { key: 'TOKEN', value });
    expect(r.status).toBe(200);
    expect(r.body.value).toBeNull();
    stamps.push(r.body.updated_at);
  }
  for (let i = 1; i < stamps.length; i++) expect(Date.parse(stamps[i])).toBeGreaterThan(Date.parse(stamps[i - 1]));
  const listed = (await c.get(`/variable?parent_id=${project.id}&scope=PROJECT`)).body.results.find((v: any) => v.id === created.body.id);
  expect(listed.updated_at).toBe(stamps.at(-1));
});
