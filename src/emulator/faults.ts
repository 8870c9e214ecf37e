/**
 * `--fault-rate P`: that fraction of requests fails, like a real service under stress: a 500, a 503
 * or a dropped connection, either before the request is handled or after its write was committed
 * (so a client that retries blindly creates duplicates, as it would in production). The random
 * source is seeded (`--fault-seed`) so chaos tests are reproducible.
 */
export type FaultKind = 500 | 503 | 'drop';

export interface Fault {
  kind: FaultKind;
  /** 'before': the request is not handled; 'after': it is handled (and committed), then the answer is lost. */
  when: 'before' | 'after';
}

/** mulberry32: small, fast, good enough for fault injection. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function decideFault(rand: () => number, rate: number): Fault | undefined {
  if (rate <= 0 || rand() >= rate) return undefined;
  const k = rand();
  const kind: FaultKind = k < 0.4 ? 500 : k < 0.8 ? 503 : 'drop';
  return { kind, when: rand() < 0.5 ? 'before' : 'after' };
}
