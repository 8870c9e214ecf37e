/**
 * How a service's BUILT_IN variable keys are spelled (./builtins.ts): `QOVERY_<KIND>_Z<HASH>_<SUFFIX>`.
 * In a module of its own, which does not import the kind registry: the variable kind's descriptor
 * reads these keys (a live alias of a built-in, src/live/record-helpers.ts), and the registry
 * imports the descriptors (no import cycle).
 */

/** `Z` + the first 8 hex digits of a service id, upper-cased: the hash in its built-in keys (the emulator keeps its own copy, shortId: it imports nothing of the product). */
export function builtInHash(serviceId: string): string {
  return `Z${serviceId.replace(/-/g, '').slice(0, 8).toUpperCase()}`;
}

const HASHED_KEY = /^QOVERY_([A-Z0-9]+)_(Z[0-9A-F]{8})_([A-Z0-9_]+)$/;

/** The parts of a service's built-in key; undefined for any other key (QOVERY_ENVIRONMENT_ID...). */
export function parseBuiltInKey(key: string): { kind: string; hash: string; suffix: string } | undefined {
  const m = HASHED_KEY.exec(key);
  return m ? { kind: m[1]!, hash: m[2]!, suffix: m[3]! } : undefined;
}
