/**
 * Response serialisation from the same JSON Schemas: a projector keeps exactly the fields a
 * schema declares (recursively) and drops everything else, then JSON.stringify writes it. This is
 * what keeps internal and write-only fields (secret values, registry ids kept for bookkeeping) out
 * of every answer, without fast-json-stringify's per-route compilation cost at start-up or its
 * slow `anyOf` handling on mixed service lists.
 */
type Schema = Record<string, any>;
export type Projector = (value: unknown) => unknown;

const identity: Projector = (v) => v;

export function projector(schema: Schema | undefined): Projector {
  if (!schema || typeof schema !== 'object') return identity;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return unionProjector(alternatives);
  if (schema.type === 'array' || schema.items) {
    const item = projector(schema.items);
    return (v) => (Array.isArray(v) ? v.map(item) : v);
  }
  if (schema.type === 'object' || schema.properties) {
    // A null for a property the schema does not declare nullable is omitted (the real API leaves an
    // unset optional field out rather than answering null where its document says string/object).
    const props = Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([k, s]) => [k, projector(s), omitsNull(s)] as const);
    const extra = schema.additionalProperties;
    if (extra === true || (props.length === 0 && extra === undefined)) return identity;
    const extraProjector = extra && typeof extra === 'object' ? projector(extra) : undefined;
    return (v) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
      const src = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      if (extraProjector) {
        for (const k of Object.keys(src)) out[k] = extraProjector(src[k]);
      }
      for (const [k, p, dropNull] of props) {
        const x = src[k];
        if (x === undefined || (x === null && dropNull)) continue;
        out[k] = p(x);
      }
      return out;
    };
  }
  return identity;
}

function omitsNull(s: Schema): boolean {
  return Boolean(s) && s.nullable !== true && typeof s.type === 'string' && !s.anyOf && !s.oneOf && !s.allOf;
}

/**
 * A union of object schemas is resolved by a discriminating enum property (service_type for
 * services): the alternative whose single-value enum matches the value's field wins.
 */
function unionProjector(alternatives: Schema[]): Projector {
  const compiled = alternatives.map((s) => ({ s, p: projector(s) }));
  const discriminators = compiled
    .map(({ s, p }) => {
      const entry = Object.entries((s.properties ?? {}) as Record<string, Schema>).find(([, ps]) => Array.isArray(ps.enum) && ps.enum.length === 1);
      return entry ? { field: entry[0], value: entry[1].enum[0], p } : undefined;
    })
    .filter((d): d is { field: string; value: unknown; p: Projector } => Boolean(d));
  if (discriminators.length !== compiled.length) {
    // Not discriminated: keep only what every alternative declares would lose data; refuse at start-up.
    throw new Error('anyOf/oneOf in a response schema needs a single-value enum discriminator in every alternative');
  }
  return (v) => {
    if (!v || typeof v !== 'object') return v;
    const rec = v as Record<string, unknown>;
    const d = discriminators.find((x) => rec[x.field] === x.value);
    return d ? d.p(v) : {};
  };
}
