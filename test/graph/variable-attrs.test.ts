/**
 * Variables in the graph, field by field (src/graph/attrs.ts, "variable"): each type, secrets
 * wrapped and listed as sensitive, aliases and overrides linked to what they name, and the
 * messages of the references that cannot be resolved. Expected values are written out here.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import { isSecretValue } from '../../src/model/secret.js';

function revealed(v: unknown): unknown {
  if (isSecretValue(v)) return `secret(${v.reveal()})`;
  if (Array.isArray(v)) return v.map(revealed);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, revealed(x)]));
  return v;
}

const P = 'project.p';
const E = `${P}/environment.e`;
const S = `${E}/container.web`;

function graphOf(projectVars: unknown[] | undefined, envVars: unknown[] | undefined, serviceVars: unknown[] | undefined) {
  return buildGraph({
    version: 1,
    projects: [{ name: 'p', variables: projectVars, environments: [{ name: 'e', cluster: 'c', variables: envVars, services: [{ type: 'container', name: 'web', registry: 'r', image_name: 'i', tag: '1', variables: serviceVars }] }] }],
  } as unknown as Manifest);
}

describe('variables in the graph', () => {
  it('every type: value, file, secret, external secret (with and without a reference), description, interpolation', () => {
    const { graph, diagnostics } = graphOf(
      [
        { key: 'PLAIN', value: 8080, description: 'a port', enable_interpolation_in_file: false },
        { key: 'FILE', value: 'a: 1\n', mount_path: '/etc/app.yaml', enable_interpolation_in_file: true, description: '' },
        { key: 'TOKEN', value: 'tok', secret: true },
        { key: 'EXT', secret: true, external_secret: { secret_manager_access_id: 'sm-1', reference: 'path/to/secret' } },
        { key: 'EXT_PLAIN', external_secret: { secret_manager_access_id: 'sm-2', reference: 'plain/ref' } },
        { key: 'EXT_NOREF', secret: true, external_secret: { secret_manager_access_id: 'sm-3' } },
      ],
      undefined,
      undefined,
    );
    expect(diagnostics).toEqual([]);
    const v = (k: string) => graph.resources.get(`${P}/variable.${k}`)!;
    expect(v('PLAIN')).toMatchObject({ kind: 'variable', name: 'PLAIN', parent: P });
    expect(v('PLAIN').attrs).toEqual({ key: 'PLAIN', variable_type: 'VALUE', is_secret: false, value: '8080', description: 'a port', enable_interpolation_in_file: false });
    expect(v('PLAIN').sensitiveFields).toBeUndefined();
    expect(v('FILE').attrs).toEqual({ key: 'FILE', variable_type: 'FILE', is_secret: false, value: 'a: 1\n', mount_path: '/etc/app.yaml', description: null, enable_interpolation_in_file: true });
    expect(revealed(v('TOKEN').attrs)).toEqual({ key: 'TOKEN', variable_type: 'VALUE', is_secret: true, value: 'secret(tok)' });
    expect(v('TOKEN').sensitiveFields).toEqual(['value']);
    expect(revealed(v('EXT').attrs)).toEqual({ key: 'EXT', variable_type: 'EXTERNAL_SECRET', is_secret: true, secret_manager_access_id: 'sm-1', reference: 'secret(path/to/secret)' });
    expect(v('EXT').sensitiveFields).toEqual(['reference']);
    expect(v('EXT_PLAIN').attrs).toEqual({ key: 'EXT_PLAIN', variable_type: 'EXTERNAL_SECRET', is_secret: false, secret_manager_access_id: 'sm-2', reference: 'plain/ref' });
    expect(v('EXT_PLAIN').sensitiveFields).toBeUndefined();
    expect(v('EXT_NOREF').attrs).toEqual({ key: 'EXT_NOREF', variable_type: 'EXTERNAL_SECRET', is_secret: true, secret_manager_access_id: 'sm-3' });
    expect(v('EXT_NOREF').sensitiveFields).toBeUndefined();
    // A variables list, even empty, owns the scope's variables; no list owns none.
    expect(graph.resources.get(P)!.owns).toEqual(['variable']);
    expect(graph.resources.get(E)!.owns ?? []).not.toContain('variable');
  });

  it('aliases and overrides name what they point to, its scope, and depend on it; an override of a secret is secret', () => {
    const { graph, diagnostics } = graphOf(
      [{ key: 'URL', value: 'https://api' }, { key: 'PASS', value: 'pw', secret: true }],
      [{ key: 'BACKEND', alias: 'URL' }, { key: 'URL', value: 'https://env-api', override: true }],
      [
        { key: 'URL', value: 'http://localhost', override: true },
        { key: 'PASS', value: 'local-pw', override: true },
        { key: 'API', alias: 'URL' },
        { key: 'NS', alias: 'QOVERY_KUBERNETES_NAMESPACE_NAME' },
        { key: 'OWN', value: 'x' },
        { key: 'SIBLING', alias: 'OWN' },
      ],
    );
    expect(diagnostics).toEqual([]);
    const v = (scope: string, k: string) => graph.resources.get(`${scope}/variable.${k}`)!;
    expect(v(E, 'BACKEND').attrs).toEqual({ key: 'BACKEND', variable_type: 'ALIAS', is_secret: false, aliased_key: 'URL', aliased_scope: 'PROJECT' });
    expect(v(E, 'BACKEND').dependsOn).toEqual([`${P}/variable.URL`]);
    expect(v(E, 'URL').attrs).toEqual({ key: 'URL', variable_type: 'OVERRIDE', is_secret: false, value: 'https://env-api', overridden_scope: 'PROJECT' });
    // An override points to the declaration, never to another override of it.
    expect(v(S, 'URL').attrs.overridden_scope).toBe('PROJECT');
    expect(v(S, 'URL').dependsOn).toEqual([`${P}/variable.URL`]);
    expect(revealed(v(S, 'PASS').attrs)).toEqual({ key: 'PASS', variable_type: 'OVERRIDE', is_secret: true, value: 'secret(local-pw)', overridden_scope: 'PROJECT' });
    expect(v(S, 'PASS').sensitiveFields).toEqual(['value']);
    // An alias from a service finds the key at the nearest scope that declares it (not an override).
    expect(v(S, 'API').attrs).toMatchObject({ aliased_key: 'URL', aliased_scope: 'PROJECT' });
    // Whether a built-in is a secret is only known live: an alias of one leaves it uncompared.
    expect(v(S, 'NS').attrs).toEqual({ key: 'NS', variable_type: 'ALIAS', aliased_key: 'QOVERY_KUBERNETES_NAMESPACE_NAME', aliased_scope: 'BUILT_IN' });
    expect(v(S, 'NS').dependsOn).toEqual([]);
    expect(v(S, 'SIBLING').attrs).toMatchObject({ aliased_key: 'OWN', aliased_scope: 'CONTAINER' });
    expect(v(S, 'SIBLING').dependsOn).toEqual([`${S}/variable.OWN`]);
  });

  it('an alias of a secret is a secret (the API makes it one), written `secret: true` or not; a contradicting `secret` is an error at it', () => {
    const { graph, diagnostics } = graphOf(
      [{ key: 'PASS', value: 'pw', secret: true }, { key: 'URL', value: 'u' }],
      [{ key: 'PASS_ALIAS', alias: 'PASS' }, { key: 'PASS_ALIAS_SAID', alias: 'PASS', secret: true }, { key: 'URL_ALIAS', alias: 'URL' }],
      [{ key: 'DB_PW', alias: 'QOVERY_POSTGRESQL_ZABC_PASSWORD', secret: true }],
    );
    expect(diagnostics).toEqual([]);
    const v = (scope: string, k: string) => graph.resources.get(`${scope}/variable.${k}`)!;
    expect(v(E, 'PASS_ALIAS').attrs).toStrictEqual({ key: 'PASS_ALIAS', variable_type: 'ALIAS', is_secret: true, aliased_key: 'PASS', aliased_scope: 'PROJECT' });
    expect(v(E, 'PASS_ALIAS_SAID').attrs).toStrictEqual({ key: 'PASS_ALIAS_SAID', variable_type: 'ALIAS', is_secret: true, aliased_key: 'PASS', aliased_scope: 'PROJECT' });
    expect(v(E, 'URL_ALIAS').attrs.is_secret).toBe(false);
    expect(v(S, 'DB_PW').attrs).toStrictEqual({ key: 'DB_PW', variable_type: 'ALIAS', is_secret: true, aliased_key: 'QOVERY_POSTGRESQL_ZABC_PASSWORD', aliased_scope: 'BUILT_IN' });

    const wrong = graphOf([{ key: 'PASS', value: 'pw', secret: true }, { key: 'URL', value: 'u' }], [{ key: 'A', alias: 'PASS', secret: false }, { key: 'B', alias: 'URL', secret: true }], undefined);
    expect(wrong.diagnostics.map((d) => [d.code, d.summary, d.address])).toEqual([
      ['ref.alias-secret', 'variable A: `secret: false` on an alias of a secret', `${E}/variable.A`],
      ['ref.alias-secret', 'variable B: `secret: true` on an alias of a plain variable', `${E}/variable.B`],
    ]);
  });

  it('an alias or an external secret never carries a value, even one written beside it', () => {
    const { graph } = graphOf([{ key: 'URL', value: 'u' }, { key: 'EXT', value: 'ignored', external_secret: { secret_manager_access_id: 'sm' } }], [{ key: 'A', alias: 'URL', value: 'ignored' }], undefined);
    expect(graph.resources.get(`${E}/variable.A`)!.attrs).toStrictEqual({ key: 'A', variable_type: 'ALIAS', is_secret: false, aliased_key: 'URL', aliased_scope: 'PROJECT' });
    expect(graph.resources.get(`${P}/variable.EXT`)!.attrs).toStrictEqual({ key: 'EXT', variable_type: 'EXTERNAL_SECRET', is_secret: false, secret_manager_access_id: 'sm' });
  });

  it('an override marked secret: false stays plain even over a secret', () => {
    const { graph } = graphOf([{ key: 'PASS', value: 'pw', secret: true }], [{ key: 'PASS', value: 'visible', override: true, secret: false }], undefined);
    const o = graph.resources.get(`${E}/variable.PASS`)!;
    expect(o.attrs).toEqual({ key: 'PASS', variable_type: 'OVERRIDE', is_secret: false, value: 'visible', overridden_scope: 'PROJECT' });
    expect(o.sensitiveFields).toBeUndefined();
  });

  it('unresolvable aliases and overrides: the message names the scopes searched', () => {
    const alias = graphOf(undefined, undefined, [{ key: 'A', alias: 'NOPE' }]).diagnostics;
    expect(alias.map((d) => [d.code, d.summary, d.detail, d.address])).toEqual([
      ['ref.unresolved', 'variable A: alias of "NOPE", which no enclosing scope declares', `An alias must refer to a variable declared at the same or a higher scope (${S}, ${E}, ${P}), or to a built-in QOVERY_* variable.`, `${S}/variable.A`],
    ]);
    const override = graphOf(undefined, [{ key: 'B', value: '1', override: true }], undefined).diagnostics;
    expect(override.map((d) => [d.code, d.summary, d.detail])).toEqual([
      ['ref.unresolved', 'variable B: override of a key that no higher scope declares', `An override must refer to a variable declared at a higher scope (${P}), or to a built-in QOVERY_* variable.`],
    ]);
    const top = graphOf([{ key: 'C', value: '1', override: true }], undefined, undefined).diagnostics;
    expect(top.map((d) => d.detail)).toEqual(['An override must refer to a variable declared at a higher scope (none), or to a built-in QOVERY_* variable.']);
  });

  it('an alias of an alias names the variable the first alias points to', () => {
    const d = graphOf([{ key: 'URL', value: 'u' }], [{ key: 'FIRST', alias: 'URL' }], [{ key: 'SECOND', alias: 'FIRST' }]).diagnostics;
    expect(d.map((x) => [x.code, x.summary, x.detail, x.address])).toEqual([
      ['ref.alias-of-alias', 'variable SECOND: "FIRST" is itself an alias', `The API has no alias of an alias: point SECOND at the variable ${E}/variable.FIRST refers to (URL).`, `${S}/variable.SECOND`],
    ]);
  });
});
