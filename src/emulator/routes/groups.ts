/**
 * Annotation groups and label groups (api-notes 7): organization-level, full-replacement PUT,
 * names unique (case-insensitive). A group still used by a service cannot be deleted (409), so a
 * service never refers to a group that is gone.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { conflict } from '../errors.js';
import { listOf, schema } from '../schemas.js';
import type { ApiRecord } from '../state.js';
import { assertUniqueName, checkOrganization, mustGet, newRecord, updatedRecord } from '../store.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';

type Body = Record<string, any>;

interface GroupKind {
  path: 'annotationsGroups' | 'labelsGroups';
  idParam: string;
  what: string;
  record: string;
  request: string;
  field: 'annotations_groups' | 'labels_groups';
  fields(b: Body): Record<string, unknown>;
}

const GROUPS: GroupKind[] = [
  {
    path: 'annotationsGroups', idParam: 'annotationsGroupId', what: 'annotations group', record: 'AnnotationsGroup', request: 'AnnotationsGroupRequest',
    field: 'annotations_groups', fields: (b) => ({ name: b.name, annotations: b.annotations, scopes: b.scopes }),
  },
  {
    path: 'labelsGroups', idParam: 'labelsGroupId', what: 'labels group', record: 'LabelsGroup', request: 'LabelsGroupRequest',
    field: 'labels_groups', fields: (b) => ({ name: b.name, labels: b.labels }),
  },
];

export function groupRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  for (const g of GROUPS) {
    const coll = () => ctx.state[g.path];
    const users = (id: string) => Object.values(ctx.state.services).filter((sv) => (sv[g.field] as Array<{ id: string }> | undefined)?.some((r) => r.id === id));
    const present = (r: ApiRecord) => (g.path === 'labelsGroups' ? { ...r, associated_items_count: users(r.id).length } : r);
    const base = `/organization/:organizationId/${g.path}`;
    const T = g.path === 'annotationsGroups' ? 'Annotations groups' : 'Labels groups';

    app.get<{ Params: { organizationId: string } }>(
      base,
      { schema: { ...doc(T, `List ${g.what}s`), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf(g.record), ...errorResponses() } } },
      async (req) => {
        checkOrganization(ctx, req.params.organizationId);
        return { results: Object.values(coll()).map(present) };
      },
    );

    app.post<{ Params: { organizationId: string }; Body: Body }>(
      base,
      { schema: { ...doc(T, `Create a ${g.what}`), params: uuidParams('organizationId'), body: schema(g.request), response: { 201: schema(g.record), ...errorResponses(409) } } },
      async (req, reply) => {
        checkOrganization(ctx, req.params.organizationId);
        assertUniqueName(Object.values(coll()), req.body.name, g.what);
        const r = newRecord(ctx, g.fields(req.body));
        coll()[r.id] = r;
        reply.code(201);
        return present(r);
      },
    );

    app.get<{ Params: Record<string, string> }>(
      `${base}/:${g.idParam}`,
      { schema: { ...doc(T, `Get a ${g.what}`), params: uuidParams('organizationId', g.idParam), response: { 200: schema(g.record), ...errorResponses() } } },
      async (req) => {
        checkOrganization(ctx, req.params.organizationId);
        return present(mustGet(coll(), req.params[g.idParam], g.what));
      },
    );

    app.put<{ Params: Record<string, string>; Body: Body }>(
      `${base}/:${g.idParam}`,
      { schema: { ...doc(T, `Edit a ${g.what} (full replacement)`), params: uuidParams('organizationId', g.idParam), body: schema(g.request), response: { 200: schema(g.record), ...errorResponses(409) } } },
      async (req) => {
        checkOrganization(ctx, req.params.organizationId);
        const old = mustGet(coll(), req.params[g.idParam], g.what);
        assertUniqueName(Object.values(coll()), req.body.name, g.what, old.id);
        coll()[old.id] = updatedRecord(ctx, old, g.fields(req.body));
        for (const sv of users(old.id)) ctx.hooks.markOutOfDate(ctx, sv.id);
        return present(coll()[old.id]);
      },
    );

    app.delete<{ Params: Record<string, string> }>(
      `${base}/:${g.idParam}`,
      { schema: { ...doc(T, `Delete a ${g.what} (409 while a service uses it)`), params: uuidParams('organizationId', g.idParam), response: { 204: { type: 'null' }, ...errorResponses(409) } } },
      async (req, reply) => {
        checkOrganization(ctx, req.params.organizationId);
        const old = mustGet(coll(), req.params[g.idParam], g.what);
        const used = users(old.id);
        if (used.length > 0) {
          throw conflict(`${g.what} '${old.name}' is used by ${used.length} service(s) (${used.slice(0, 3).map((x) => x.name).join(', ')}); remove it from them first`);
        }
        delete coll()[old.id];
        reply.code(204);
      },
    );
  }
}
