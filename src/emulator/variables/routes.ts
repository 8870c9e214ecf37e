/**
 * Variable and secret routes:
 *
 * - the unified API: `GET /variable?parent_id&scope[&is_secret]`, `POST /variable`,
 *   `PUT|DELETE /variable/{variableId}`, `POST /variable/{variableId}/alias|override`;
 * - the legacy routes `/{application|container|job|environment|project}/{id}/environmentVariable[...]`
 *   and `.../secret[...]`: list, create, edit, delete, alias, override (helm and terraform have
 *   none; databases have no variables at all).
 *
 * Lists include inherited variables (environment, project) and the environment's BUILT_IN ones.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { badRequest, invalidField, notFound } from '../errors.js';
import { schema, listOf } from '../schemas.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import type { ApiRecord } from '../state.js';
import { ensureBuiltIns } from './builtins.js';
import { markParentOutOfDate, variableDeps } from './cascade.js';
import { toLegacySecret, toLegacyVariable, toUnified } from './render.js';
import {
  createAlias, createOverride, createVariable, deleteVariable, editVariable, requireParent, requireVariable,
  visibleVariables, type VariableDeps,
} from './rules.js';
import { type CreatableScope, type VariableParent, isCreatableScope, parentOfId } from './scopes.js';

type Q = Record<string, any>;

/** The parent a stored variable belongs to (for out-of-date marking after a write). */
function parentOfVariable(ctx: EmulatorContext, v: ApiRecord): VariableParent | undefined {
  return v.parent_id ? parentOfId(ctx.state, v.parent_id) : undefined;
}

function creatableScope(scope: string, field: string): CreatableScope {
  if (scope === 'BUILT_IN') throw invalidField(field, 'BUILT_IN variables are created by the platform and are read-only; use PROJECT, ENVIRONMENT or a service scope');
  if (!isCreatableScope(scope)) throw invalidField(field, `unknown scope '${scope}'`);
  return scope;
}

/** Makes sure the built-ins of the parent's environment exist before it is listed. */
function syncFor(deps: VariableDeps, parent: VariableParent): void {
  if (parent.environmentId) ensureBuiltIns(deps, parent.environmentId);
}

export function unifiedVariableRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const deps = () => variableDeps(ctx);

  app.get('/variable', { schema: { ...doc('Variables', 'Variables a parent sees: its own, inherited and built-in (scope, parent_id)'), querystring: schema('VariableListQuery'), response: { 200: listOf('VariableResponse'), ...errorResponses() } } }, async (req) => {
    const q = req.query as Q;
    const d = deps();
    const parent = requireParent(ctx.state, creatableScope(q.scope, 'scope'), q.parent_id, 'parent_id');
    syncFor(d, parent);
    let vars = visibleVariables(d.index, parent);
    if (q.is_secret !== undefined) vars = vars.filter((v) => Boolean(v.is_secret) === q.is_secret);
    return { results: vars.map((v) => toUnified(v, d.index)) };
  });

  app.post('/variable', { schema: { ...doc('Variables', 'Create a variable or secret'), body: schema('VariableRequest'), response: { 201: schema('VariableResponse'), ...errorResponses(409) } } }, async (req, reply) => {
    const b = req.body as Q;
    const d = deps();
    const parent = requireParent(ctx.state, creatableScope(b.variable_scope, 'variable_scope'), b.variable_parent_id);
    syncFor(d, parent);
    const v = createVariable(d, parent, b as any);
    markParentOutOfDate(ctx, parent);
    reply.code(201);
    return toUnified(v, d.index);
  });

  app.put('/variable/:variableId', { schema: { ...doc('Variables', 'Edit a variable (is_secret, mount_path and scope cannot change)'), params: uuidParams('variableId'), body: schema('VariableEditRequest'), response: { 200: schema('VariableResponse'), ...errorResponses(409) } } }, async (req) => {
    const d = deps();
    const v = editVariable(d, (req.params as Q).variableId, req.body as any);
    const parent = parentOfVariable(ctx, v);
    if (parent) markParentOutOfDate(ctx, parent);
    return toUnified(v, d.index);
  });

  app.delete('/variable/:variableId', { schema: { ...doc('Variables', 'Delete a variable, with its aliases and overrides'), params: uuidParams('variableId'), response: { 204: { type: 'null', description: 'deleted' }, ...errorResponses() } } }, async (req, reply) => {
    const d = deps();
    const v = requireVariable(d.index, (req.params as Q).variableId);
    const parent = parentOfVariable(ctx, v);
    deleteVariable(d, v.id);
    if (parent) markParentOutOfDate(ctx, parent);
    return reply.code(204).send();
  });

  app.post('/variable/:variableId/alias', { schema: { ...doc('Variables', 'Alias a variable at a lower scope'), params: uuidParams('variableId'), body: schema('VariableAliasRequest'), response: { 201: schema('VariableResponse'), ...errorResponses(409) } } }, async (req, reply) => {
    const b = req.body as Q;
    const d = deps();
    const parent = requireParent(ctx.state, creatableScope(b.alias_scope, 'alias_scope'), b.alias_parent_id, 'alias_parent_id');
    const v = createAlias(d, (req.params as Q).variableId, parent, b as any);
    markParentOutOfDate(ctx, parent);
    reply.code(201);
    return toUnified(v, d.index);
  });

  app.post('/variable/:variableId/override', { schema: { ...doc('Variables', 'Override a variable at a lower scope'), params: uuidParams('variableId'), body: schema('VariableOverrideRequest'), response: { 201: schema('VariableResponse'), ...errorResponses(409) } } }, async (req, reply) => {
    const b = req.body as Q;
    const d = deps();
    const parent = requireParent(ctx.state, creatableScope(b.override_scope, 'override_scope'), b.override_parent_id, 'override_parent_id');
    const v = createOverride(d, (req.params as Q).variableId, parent, b as any);
    markParentOutOfDate(ctx, parent);
    reply.code(201);
    return toUnified(v, d.index);
  });
}

/** path segment -> (scope, id parameter name). Helm and terraform have no legacy routes. */
const LEGACY_PARENTS: Array<{ segment: string; scope: CreatableScope; param: string }> = [
  { segment: 'application', scope: 'APPLICATION', param: 'applicationId' },
  { segment: 'container', scope: 'CONTAINER', param: 'containerId' },
  { segment: 'job', scope: 'JOB', param: 'jobId' },
  { segment: 'environment', scope: 'ENVIRONMENT', param: 'environmentId' },
  { segment: 'project', scope: 'PROJECT', param: 'projectId' },
];

const LEGACY_KINDS = [
  { collection: 'environmentVariable', idParam: 'environmentVariableId', secret: false, record: 'EnvironmentVariable' },
  { collection: 'secret', idParam: 'secretId', secret: true, record: 'Secret' },
] as const;

export function legacyVariableRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  for (const p of LEGACY_PARENTS) {
    for (const k of LEGACY_KINDS) {
      const base = `/${p.segment}/:${p.param}/${k.collection}`;
      const item = `${base}/:${k.idParam}`;
      const what = k.secret ? 'secret' : 'environment variable';
      const tag = k.secret ? 'Secrets (legacy)' : 'Environment variables (legacy)';
      const render = (v: ApiRecord, d: VariableDeps) => (k.secret ? toLegacySecret(v, d.index) : toLegacyVariable(v, d.index));
      const parentOf = (params: Q): VariableParent => {
        const id = String(params[p.param]);
        const parent = parentOfId(ctx.state, id);
        if (!parent || parent.scope !== p.scope) throw notFound(p.segment, id);
        return parent;
      };
      /** The variable addressed by the path, which must be of this kind (secret or not) and visible. */
      const itemOf = (d: VariableDeps, params: Q, parent: VariableParent): ApiRecord => {
        const id = String(params[k.idParam]);
        const v = d.index.get(id);
        const visible = v && (v.parent_id === parent.id || parent.ancestors.includes(v.parent_id));
        if (!v || !visible || Boolean(v.is_secret) !== k.secret) throw notFound(k.secret ? 'secret' : 'environment variable', id);
        return v;
      };
      /** The target of an alias or override: any variable of this kind; the rules check the scope. */
      const targetOf = (d: VariableDeps, params: Q): ApiRecord => {
        const v = requireVariable(d.index, String(params[k.idParam]));
        if (Boolean(v.is_secret) !== k.secret) throw notFound(k.secret ? 'secret' : 'environment variable', v.id);
        return v;
      };
      const ownItemOf = (d: VariableDeps, params: Q, parent: VariableParent): ApiRecord => {
        const v = itemOf(d, params, parent);
        if (v.parent_id !== parent.id) {
          throw badRequest(`${k.secret ? 'secret' : 'environment variable'} '${v.key}' belongs to a higher scope (${v.scope}); edit or delete it there, or override it here`);
        }
        return v;
      };

      app.get(base, { schema: { ...doc(tag, `List the ${what}s of a ${p.segment} (inherited ones included)`), params: uuidParams(p.param), response: { 200: listOf(k.record), ...errorResponses() } } }, async (req) => {
        const d = variableDeps(ctx);
        const parent = parentOf(req.params as Q);
        syncFor(d, parent);
        const vars = visibleVariables(d.index, parent).filter((v) => Boolean(v.is_secret) === k.secret);
        return { results: vars.map((v) => render(v, d)) };
      });

      app.post(base, { schema: { ...doc(tag, `Create a ${what} of a ${p.segment}`), params: uuidParams(p.param), body: schema('EnvironmentVariableRequest'), response: { 201: schema(k.record), ...errorResponses(409) } } }, async (req, reply) => {
        const b = req.body as Q;
        const d = variableDeps(ctx);
        const parent = parentOf(req.params as Q);
        syncFor(d, parent);
        const v = createVariable(d, parent, { ...b, key: b.key, value: b.value ?? '', is_secret: k.secret } as any);
        markParentOutOfDate(ctx, parent);
        reply.code(201);
        return render(v, d);
      });

      app.put(item, { schema: { ...doc(tag, `Edit a ${what} of a ${p.segment}`), params: uuidParams(p.param, k.idParam), body: schema('EnvironmentVariableEditRequest'), response: { 200: schema(k.record), ...errorResponses(409) } } }, async (req) => {
        const d = variableDeps(ctx);
        const parent = parentOf(req.params as Q);
        const current = ownItemOf(d, req.params as Q, parent);
        const v = editVariable(d, current.id, req.body as any);
        markParentOutOfDate(ctx, parent);
        return render(v, d);
      });

      app.delete(item, { schema: { ...doc(tag, `Delete a ${what} of a ${p.segment} (with its aliases and overrides)`), params: uuidParams(p.param, k.idParam), response: { 204: { type: 'null', description: 'deleted' }, ...errorResponses() } } }, async (req, reply) => {
        const d = variableDeps(ctx);
        const parent = parentOf(req.params as Q);
        const current = ownItemOf(d, req.params as Q, parent);
        deleteVariable(d, current.id);
        markParentOutOfDate(ctx, parent);
        return reply.code(204).send();
      });

      app.post(`${item}/override`, { schema: { ...doc(tag, `Override a higher-scope ${what} for this ${p.segment}`), params: uuidParams(p.param, k.idParam), body: schema('LegacyOverrideRequest'), response: { 201: schema(k.record), ...errorResponses(409) } } }, async (req, reply) => {
        const d = variableDeps(ctx);
        const parent = parentOf(req.params as Q);
        const target = targetOf(d, req.params as Q);
        const v = createOverride(d, target.id, parent, req.body as any);
        markParentOutOfDate(ctx, parent);
        reply.code(201);
        return render(v, d);
      });

      app.post(`${item}/alias`, { schema: { ...doc(tag, `Alias a higher-scope ${what} for this ${p.segment}`), params: uuidParams(p.param, k.idParam), body: schema('LegacyAliasRequest'), response: { 201: schema(k.record), ...errorResponses(409) } } }, async (req, reply) => {
        const d = variableDeps(ctx);
        const parent = parentOf(req.params as Q);
        const target = targetOf(d, req.params as Q);
        const v = createAlias(d, target.id, parent, req.body as any);
        markParentOutOfDate(ctx, parent);
        reply.code(201);
        return render(v, d);
      });
    }
  }
}

