/**
 * Webhook delivery signatures.
 *
 * When a webhook has a secret (`target_secret`), every delivery carries
 *
 *     Qovery-Signature: sha256=<hex HMAC-SHA256 of the raw request body, keyed with the secret>
 *
 * (the header the real service names; the seed leaves signatures open). A receiver verifies it by
 * computing the same HMAC over the exact bytes it received, before parsing them, and comparing in
 * constant time: see `verifySignature`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'qovery-signature';
export const EVENT_HEADER = 'qovery-event';
export const DELIVERY_HEADER = 'qovery-delivery';

export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** True when `header` is the signature of `body` under `secret`. */
export function verifySignature(secret: string, body: string | Buffer, header: string | undefined | null): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header.trim());
  return expected.length === given.length && timingSafeEqual(expected, given);
}
