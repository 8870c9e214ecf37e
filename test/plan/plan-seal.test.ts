/**
 * The plan file's seal as pure functions (src/plan/plan-seal.ts). Every expected MAC and key id is
 * computed here from the definition in the module's header, with node:crypto, not with the module.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sealDocument, verifySeal, type SealKey } from '../../src/plan/plan-seal.js';

const KEY: SealKey = { key: 'seal-test-key', source: 'env' };
const OTHER: SealKey = { key: 'another-key', source: 'env' };

const sealKeyOf = (k: string): Buffer => createHmac('sha256', k).update('driftless plan-file seal v1').digest();
const keyIdOf = (k: string): string => createHmac('sha256', sealKeyOf(k)).update('driftless plan-file key id v1').digest('hex').slice(0, 16);

describe('sealDocument', () => {
  it('appends a seal whose key id and MAC follow the documented derivation', () => {
    const body = { format_version: 3, plan: { changes: [{ address: 'project.p', note: 'é' }] } };
    const sealed = sealDocument(body, KEY);
    const seal = { algorithm: 'hmac-sha256', key_source: 'env', key_id: keyIdOf(KEY.key) };
    const mac = createHmac('sha256', sealKeyOf(KEY.key)).update(JSON.stringify({ ...body, seal })).digest('hex');
    expect(sealed).toEqual({ ...body, seal: { ...seal, mac } });
    expect(Object.keys(sealed)).toEqual(['format_version', 'plan', 'seal']);
    expect(Object.keys(sealed.seal)).toEqual(['algorithm', 'key_source', 'key_id', 'mac']);
    // The input is not modified.
    expect(body).toEqual({ format_version: 3, plan: { changes: [{ address: 'project.p', note: 'é' }] } });
  });

  it('records where the key came from', () => {
    expect(sealDocument({ a: 1 }, { key: 'k', source: 'fallback' }).seal.key_source).toBe('fallback');
  });
});

describe('verifySeal', () => {
  const doc = (): Record<string, unknown> => JSON.parse(JSON.stringify(sealDocument({ format_version: 3, plan: { n: 1 } }, KEY)));

  it('accepts the document as written, and after a reformatting that keeps its members', () => {
    expect(verifySeal(doc(), KEY)).toBe('valid');
    expect(verifySeal(JSON.parse(JSON.stringify(doc(), null, 2)), KEY)).toBe('valid');
  });

  it('calls a document without a complete hmac-sha256 seal unsealed', () => {
    const { seal, ...body } = doc() as { seal: Record<string, unknown> };
    expect(verifySeal(body, KEY)).toBe('unsealed');
    expect(verifySeal({ ...body, seal: 'abc' }, KEY)).toBe('unsealed');
    expect(verifySeal({ ...body, seal: { ...seal, algorithm: 'sha256' } }, KEY)).toBe('unsealed');
    expect(verifySeal({ ...body, seal: { ...seal, mac: 5 } }, KEY)).toBe('unsealed');
    expect(verifySeal({ ...body, seal: { ...seal, key_id: undefined } }, KEY)).toBe('unsealed');
  });

  it('tells a document sealed with another key from an edited one', () => {
    expect(verifySeal(doc(), OTHER)).toBe('other-key');
    const edited = doc();
    (edited.plan as { n: number }).n = 2;
    expect(verifySeal(edited, KEY)).toBe('tampered');
    // An edited seal member is an edit too, and so is a MAC of the wrong length.
    const relabelled = doc();
    (relabelled.seal as { key_source: string }).key_source = 'fallback';
    expect(verifySeal(relabelled, KEY)).toBe('tampered');
    const short = doc();
    (short.seal as { mac: string }).mac = (short.seal as { mac: string }).mac.slice(0, 63);
    expect(verifySeal(short, KEY)).toBe('tampered');
    // A key id that is not ours, on an edited file, reads as another key.
    const foreignId = doc();
    (foreignId.seal as { key_id: string }).key_id = keyIdOf(OTHER.key);
    expect(verifySeal(foreignId, KEY)).toBe('other-key');
  });
});
