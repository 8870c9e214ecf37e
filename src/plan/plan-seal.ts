/**
 * The seal of a saved plan file: HMAC-SHA256 over the whole document (every member but the seal
 * itself), so that a file edited after `plan --out` wrote it is refused, whatever was edited.
 *
 * Key: derived from the fingerprint key (DRIFTLESS_FINGERPRINT_KEY, or the fallback derived from
 * the organization id) with a purpose label, so that a seal is never usable as a secret
 * fingerprint nor the other way round: `sealKey = HMAC-SHA256(fingerprintKey, SEAL_KEY_LABEL)`.
 *
 *   seal.key_id = first 16 hex of HMAC-SHA256(sealKey, KEY_ID_LABEL)
 *   seal.mac    = hex(HMAC-SHA256(sealKey, JSON.stringify(the document, its seal without "mac")))
 *
 * The key id tells "sealed with another key" (plan and apply ran with different keys) from "edited"
 * without revealing anything of the key. The document is hashed as JSON.stringify of its parsed
 * members in file order: whitespace may change, nothing else.
 *
 * NOTE: with the fallback key (no DRIFTLESS_FINGERPRINT_KEY) the seal catches accidental edits and
 * truncation but not a forger who knows the organization id; that is why the fallback warns. What
 * an apply may destroy never comes from the file in any case (apply/authority.ts), and apply does
 * not take the manifest paths of a file it verified with the fallback key (cli/commands/apply.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SEAL_ALGORITHM = 'hmac-sha256' as const;
export const SEAL_KEY_LABEL = 'driftless plan-file seal v1';
export const KEY_ID_LABEL = 'driftless plan-file key id v1';

export interface SealKey {
  /** The fingerprint key (never written anywhere). */
  key: string;
  source: 'env' | 'fallback';
}

export interface PlanSeal {
  algorithm: typeof SEAL_ALGORITHM;
  /** Where the key came from when the file was written (informative: the reader chooses its key). */
  key_source: 'env' | 'fallback';
  key_id: string;
  mac: string;
}

function sealKeyOf(k: SealKey): Buffer {
  return createHmac('sha256', k.key).update(SEAL_KEY_LABEL, 'utf8').digest();
}

function keyIdOf(sealKey: Buffer): string {
  return createHmac('sha256', sealKey).update(KEY_ID_LABEL, 'utf8').digest('hex').slice(0, 16);
}

function macOf(sealKey: Buffer, body: Record<string, unknown>): string {
  return createHmac('sha256', sealKey).update(JSON.stringify(body), 'utf8').digest('hex');
}

/** The document with its seal as last member. */
export function sealDocument<T extends Record<string, unknown>>(body: T, key: SealKey): T & { seal: PlanSeal } {
  const sk = sealKeyOf(key);
  const unsealed = { ...body, seal: { algorithm: SEAL_ALGORITHM, key_source: key.source, key_id: keyIdOf(sk) } };
  return { ...body, seal: { ...unsealed.seal, mac: macOf(sk, unsealed) } };
}

export type SealVerdict = 'valid' | 'unsealed' | 'other-key' | 'tampered';

/** Checks a parsed document's seal with the reader's key. */
export function verifySeal(doc: Record<string, unknown>, key: SealKey): SealVerdict {
  const s = doc.seal as Partial<PlanSeal> | undefined;
  if (!s || typeof s !== 'object' || s.algorithm !== SEAL_ALGORITHM || typeof s.mac !== 'string' || typeof s.key_id !== 'string') return 'unsealed';
  const { mac: _mac, ...sealWithoutMac } = s;
  const sk = sealKeyOf(key);
  const expected = Buffer.from(macOf(sk, { ...doc, seal: sealWithoutMac }), 'utf8');
  const given = Buffer.from(s.mac, 'utf8');
  if (given.length === expected.length && timingSafeEqual(given, expected)) return 'valid';
  // Only now is the key id looked at: a matching MAC is all that counts.
  return s.key_id !== keyIdOf(sk) ? 'other-key' : 'tampered';
}
