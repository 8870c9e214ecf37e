/**
 * The key a plan file's seal is checked with: the reading command's own fingerprint key (or its
 * fallback, derived from the organization the file names), never anything the file says. Shared
 * by `apply PLANFILE` and `show PLANFILE`.
 */
import { resolveFingerprintKey } from '../plan/fingerprint.js';
import type { SealKeyOf } from '../plan/planfile.js';

export function sealKeyFromEnv(env: NodeJS.ProcessEnv): SealKeyOf {
  return (organizationId) => {
    const k = resolveFingerprintKey(env, organizationId);
    return k.key === undefined ? undefined : { key: k.key, source: k.source };
  };
}
