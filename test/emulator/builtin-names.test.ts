/**
 * The built-ins the emulator creates for a service are exactly those src/model/builtins.ts says its
 * kind has (the table `validate` checks `alias: {service, builtin}` against), with the key naming
 * the product parses: `QOVERY_<KIND>_Z<hash of the id>_<SUFFIX>`, secret where the table says so.
 */
import { describe, expect, it } from 'vitest';
import { builtInsOfService } from '../../src/emulator/variables/builtins.js';
import { builtInHash, builtInsOfKind, parseBuiltInKey } from '../../src/model/builtins.js';
import { SERVICE_KINDS, type ServiceKind } from '../../src/model/resource.js';

const ID = '5e9b62fb-1234-4abc-8def-0123456789ab';

describe('the emulator built-ins and the table of built-in names', () => {
  const cases: Array<[ServiceKind, string | undefined]> = SERVICE_KINDS.flatMap((kind): Array<[ServiceKind, string | undefined]> =>
    kind === 'database' ? ['POSTGRESQL', 'MYSQL', 'MONGODB', 'REDIS'].map((type) => [kind, type]) : [[kind, undefined]],
  );
  it.each(cases)(
    '%s %s',
    (kind, type) => {
      const svc = { id: ID, created_at: '2026-01-01T00:00:00Z', name: 'svc', service_type: kind.toUpperCase(), ...(type ? { type } : {}) };
      const made = builtInsOfService(svc).map((b) => {
        const k = parseBuiltInKey(b.key);
        expect(k, b.key).toBeDefined();
        expect(k!.hash).toBe(builtInHash(ID));
        expect(k!.kind).toBe(type ?? kind.toUpperCase());
        return { suffix: k!.suffix, secret: b.is_secret };
      });
      expect(made).toEqual(builtInsOfKind(kind).map((b) => ({ suffix: b.suffix, secret: b.secret })));
    },
  );
});
