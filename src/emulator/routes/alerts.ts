/**
 * Alert receivers and alert rules (api-notes 7).
 *
 * Receivers: write-only `webhook_url` (SLACK) and `auth_password` (EMAIL) are kept in
 * `alertReceiverSecrets` and never returned; validation checks the receiver and records the test
 * message in `receiverValidations` (without any secret). A receiver used by a rule cannot be deleted.
 * Rules: at least one receiver, every receiver must exist, `cluster_id` and `target` must exist and
 * are immutable afterwards.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { conflict, invalidField } from '../errors.js';
import { listOf, schema } from '../schemas.js';
import type { ApiRecord } from '../state.js';
import { assertUniqueName, checkOrganization, mustGet, newRecord, updatedRecord } from '../store.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';
import { KINDS, defaultIconUri } from '../services/kinds.js';

type Body = Record<string, any>;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The receiver's problems, in order; `prefix` names the enclosing field in messages. */
export function checkReceiver(r: Body, prefix = ''): void {
  const f = (name: string) => `${prefix}${name}`;
  if (r.type === 'SLACK') {
    if (!r.webhook_url) throw invalidField(f('webhook_url'), 'is required for a SLACK receiver');
    if (!/^https:\/\/[^\s/]+\/\S*$/.test(r.webhook_url)) throw invalidField(f('webhook_url'), 'must be an https URL (for example https://hooks.slack.com/services/...)');
  } else {
    for (const k of ['to', 'from', 'smarthost']) if (!r[k]) throw invalidField(f(k), 'is required for an EMAIL receiver');
    for (const k of ['to', 'from']) {
      if (!String(r[k]).split(',').every((a: string) => EMAIL_RE.test(a.trim()))) throw invalidField(f(k), 'must be an email address (several: comma-separated)');
    }
    if (!/^[^\s:]+:\d{1,5}$/.test(r.smarthost)) throw invalidField(f('smarthost'), "must be 'host:port', for example smtp.example.com:587");
    if (!r.auth_password) throw invalidField(f('auth_password'), 'is required for an EMAIL receiver');
  }
}

function receiverFields(b: Body): Body {
  const common = { name: b.name, description: b.description ?? '', type: b.type, send_resolved: b.send_resolved ?? false, owner: b.owner ?? null, severity: b.severity ?? null };
  if (b.type === 'EMAIL') return { ...common, to: b.to, from: b.from, smarthost: b.smarthost, auth_username: b.auth_username ?? null, require_tls: b.require_tls ?? true };
  return common;
}

function secretsOf(b: Body): Record<string, string> {
  return b.type === 'SLACK' ? { webhook_url: b.webhook_url } : { auth_password: b.auth_password };
}

export function alertRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;
  const receiver = schema('AlertReceiver');
  const R = 'Alert receivers';

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId/alert-receivers',
    { schema: { ...doc(R, 'List alert receivers'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('AlertReceiver'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.alertReceivers) };
    },
  );

  app.post<{ Body: Body }>(
    '/alert-receivers',
    { schema: { ...doc(R, 'Create an alert receiver'), body: schema('AlertReceiverCreateRequest'), response: { 201: receiver, ...errorResponses(409) } } },
    async (req, reply) => {
      if (req.body.organization_id !== s.organization.id) throw invalidField('organization_id', `no organization '${req.body.organization_id}'`);
      checkReceiver(req.body);
      assertUniqueName(Object.values(s.alertReceivers), req.body.name, 'alert receiver');
      const r = newRecord(ctx, { organization_id: s.organization.id, ...receiverFields(req.body) });
      s.alertReceivers[r.id] = r;
      s.alertReceiverSecrets[r.id] = secretsOf(req.body);
      reply.code(201);
      return r;
    },
  );

  app.get<{ Params: { alertReceiverId: string } }>(
    '/alert-receivers/:alertReceiverId',
    { schema: { ...doc(R, 'Get an alert receiver'), params: uuidParams('alertReceiverId'), response: { 200: receiver, ...errorResponses() } } },
    async (req) => mustGet(s.alertReceivers, req.params.alertReceiverId, 'alert receiver'),
  );

  app.put<{ Params: { alertReceiverId: string }; Body: Body }>(
    '/alert-receivers/:alertReceiverId',
    { schema: { ...doc(R, 'Edit an alert receiver (write-only fields kept when omitted)'), params: uuidParams('alertReceiverId'), body: schema('AlertReceiverEditRequest'), response: { 200: receiver, ...errorResponses(409) } } },
    async (req) => {
      const old = mustGet(s.alertReceivers, req.params.alertReceiverId, 'alert receiver');
      const kept = old.type === req.body.type ? s.alertReceiverSecrets[old.id] ?? {} : {};
      const merged = { ...kept, ...req.body };
      checkReceiver(merged);
      assertUniqueName(Object.values(s.alertReceivers), req.body.name, 'alert receiver', old.id);
      const fields = receiverFields(merged);
      const next = updatedRecord(ctx, old, fields);
      // Full replacement: EMAIL-only fields disappear when the type becomes SLACK.
      if (fields.type === 'SLACK') for (const k of ['to', 'from', 'smarthost', 'auth_username', 'require_tls']) delete next[k];
      s.alertReceivers[old.id] = next;
      s.alertReceiverSecrets[old.id] = secretsOf(merged);
      return next;
    },
  );

  app.delete<{ Params: { alertReceiverId: string } }>(
    '/alert-receivers/:alertReceiverId',
    { schema: { ...doc(R, 'Delete an alert receiver (409 while a rule uses it)'), params: uuidParams('alertReceiverId'), response: { 204: { type: 'null' }, ...errorResponses(409) } } },
    async (req, reply) => {
      const old = mustGet(s.alertReceivers, req.params.alertReceiverId, 'alert receiver');
      const users = Object.values(s.alertRules).filter((r) => (r.alert_receiver_ids as string[]).includes(old.id));
      if (users.length) throw conflict(`alert receiver '${old.name}' is used by alert rule(s) ${users.map((u) => `'${u.name}'`).join(', ')}; change them first`);
      delete s.alertReceivers[old.id];
      delete s.alertReceiverSecrets[old.id];
      reply.code(204);
    },
  );

  const record = (receiverId: string | null, r: Body, message: string | undefined) => {
    const entry = newRecord(ctx, { receiver_id: receiverId, receiver_name: r.name, type: r.type, message: message ?? 'Test message from the driftless emulator' });
    s.receiverValidations = [...s.receiverValidations, entry];
  };

  app.post<{ Body: { alert_receiver: Body; message?: string } }>(
    '/alert-receivers/validate',
    { schema: { ...doc(R, 'Send a test message to a receiver before creating it (200, no body)'), body: schema('AlertReceiverValidationRequest'), response: { 200: { description: 'acknowledged', type: 'null' }, ...errorResponses() } } },
    async (req, reply) => {
      checkReceiver(req.body.alert_receiver, 'alert_receiver.');
      record(null, req.body.alert_receiver, req.body.message);
      return reply.code(200).send();
    },
  );

  app.post<{ Params: { alertReceiverId: string }; Body: { message?: string } | undefined }>(
    '/alert-receivers/:alertReceiverId/validate',
    { schema: { ...doc(R, 'Send a test message to an existing receiver (200, no body)'), params: uuidParams('alertReceiverId'), body: schema('AlertReceiverExistingValidationRequest'), response: { 200: { description: 'acknowledged', type: 'null' }, ...errorResponses() } } },
    async (req, reply) => {
      const r = mustGet(s.alertReceivers, req.params.alertReceiverId, 'alert receiver');
      checkReceiver({ ...r, ...(s.alertReceiverSecrets[r.id] ?? {}) });
      record(r.id, r, req.body?.message);
      return reply.code(200).send();
    },
  );

  // ---- alert rules ----
  const rule = schema('AlertRule');
  const A = 'Alert rules';

  const present = (r: ApiRecord): ApiRecord => ({ ...r, target: { ...r.target, service: serviceSummary(ctx, r.target) } });

  const checkRuleRefs = (b: Body) => {
    (b.alert_receiver_ids as string[]).forEach((id, i) => {
      if (!s.alertReceivers[id]) throw invalidField(`alert_receiver_ids[${i}]`, `no alert receiver with id '${id}'`);
    });
    if (new Set(b.alert_receiver_ids).size !== b.alert_receiver_ids.length) throw invalidField('alert_receiver_ids', 'lists a receiver twice');
  };

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId/alert-rules',
    { schema: { ...doc(A, 'List alert rules'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('AlertRule'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.alertRules).map(present) };
    },
  );

  app.post<{ Body: Body }>(
    '/alert-rules',
    { schema: { ...doc(A, 'Create an alert rule'), body: schema('AlertRuleCreateRequest'), response: { 201: rule, ...errorResponses(409) } } },
    async (req, reply) => {
      const b = req.body;
      if (b.organization_id !== s.organization.id) throw invalidField('organization_id', `no organization '${b.organization_id}'`);
      if (!s.clusters[b.cluster_id]) throw invalidField('cluster_id', `no cluster with id '${b.cluster_id}'`);
      checkTarget(ctx, b.target);
      checkRuleRefs(b);
      assertUniqueName(Object.values(s.alertRules), b.name, 'alert rule');
      const r = newRecord(ctx, {
        source: 'MANAGED', state: 'OK', is_up_to_date: true, starts_at: null,
        organization_id: s.organization.id, cluster_id: b.cluster_id, target: { target_type: b.target.target_type, target_id: b.target.target_id },
        ...ruleFields(b),
      });
      s.alertRules[r.id] = r;
      reply.code(201);
      return present(r);
    },
  );

  app.get<{ Params: { alertRuleId: string } }>(
    '/alert-rules/:alertRuleId',
    { schema: { ...doc(A, 'Get an alert rule'), params: uuidParams('alertRuleId'), response: { 200: rule, ...errorResponses() } } },
    async (req) => present(mustGet(s.alertRules, req.params.alertRuleId, 'alert rule')),
  );

  app.put<{ Params: { alertRuleId: string }; Body: Body }>(
    '/alert-rules/:alertRuleId',
    { schema: { ...doc(A, 'Edit an alert rule (cluster and target are immutable)'), params: uuidParams('alertRuleId'), body: schema('AlertRuleEditRequest'), response: { 200: rule, ...errorResponses(409) } } },
    async (req) => {
      const old = mustGet(s.alertRules, req.params.alertRuleId, 'alert rule');
      const b = req.body;
      if (b.cluster_id !== undefined && b.cluster_id !== old.cluster_id) throw invalidField('cluster_id', 'the cluster of an alert rule cannot be changed; create a new rule');
      if (b.target !== undefined && (b.target.target_type !== old.target.target_type || b.target.target_id !== old.target.target_id)) {
        throw invalidField('target', 'the target of an alert rule cannot be changed; create a new rule');
      }
      checkRuleRefs(b);
      assertUniqueName(Object.values(s.alertRules), b.name, 'alert rule', old.id);
      s.alertRules[old.id] = updatedRecord(ctx, old, ruleFields(b));
      return present(s.alertRules[old.id]);
    },
  );

  app.delete<{ Params: { alertRuleId: string } }>(
    '/alert-rules/:alertRuleId',
    { schema: { ...doc(A, 'Delete an alert rule'), params: uuidParams('alertRuleId'), response: { 204: { type: 'null' }, ...errorResponses() } } },
    async (req, reply) => {
      mustGet(s.alertRules, req.params.alertRuleId, 'alert rule');
      delete s.alertRules[req.params.alertRuleId];
      reply.code(204);
    },
  );
}

function ruleFields(b: Body): Body {
  return {
    name: b.name,
    description: b.description,
    tag: b.tag,
    condition: { kind: b.condition.kind, promql: b.condition.promql, operator: b.condition.operator ?? 'NONE', threshold: b.condition.threshold ?? 0, function: b.condition.function ?? 'NONE' },
    for_duration: b.for_duration,
    severity: b.severity,
    presentation: { summary: b.presentation.summary ?? null, runbook_url: b.presentation.runbook_url ?? null },
    enabled: b.enabled,
    alert_receiver_ids: [...b.alert_receiver_ids],
  };
}

/** An alert's service `target_type` -> the `service_type` it names: each kind's own (services/kinds.ts), and CRONJOB a job. */
const TARGET_SERVICE_TYPE: Record<string, string> = { ...Object.fromEntries(KINDS.map((k) => [k.type, k.type])), CRONJOB: 'JOB' };

function checkTarget(ctx: EmulatorContext, t: { target_type: string; target_id: string }): void {
  const s = ctx.state;
  const missing = () => invalidField('target.target_id', `no ${t.target_type.toLowerCase()} with id '${t.target_id}'`);
  if (t.target_type === 'CLUSTER') {
    if (!s.clusters[t.target_id]) throw missing();
  } else if (t.target_type === 'ENVIRONMENT') {
    if (!s.environments[t.target_id]) throw missing();
  } else {
    const svc = s.services[t.target_id];
    if (!svc || svc.service_type !== TARGET_SERVICE_TYPE[t.target_type]) throw missing();
    if (t.target_type === 'CRONJOB' && svc.job_type !== 'CRON') throw invalidField('target.target_type', `job '${svc.name}' is not a cron job; use JOB`);
  }
}

function serviceSummary(ctx: EmulatorContext, t: { target_type: string; target_id: string }): Body | null {
  const svc = ctx.state.services[t.target_id];
  if (!svc) return null;
  const env = ctx.state.environments[svc.environment.id];
  const project = env ? ctx.state.projects[env.project.id] : undefined;
  return {
    // Same as a service summary (ServiceLightResponse): description and icon_uri are strings.
    id: svc.id, name: svc.name, description: svc.description ?? '', icon_uri: svc.icon_uri ?? defaultIconUri(String(svc.service_type)), service_type: svc.service_type,
    project_id: project?.id, project_name: project?.name, environment_id: env?.id, environment_name: env?.name, cluster_id: env?.cluster_id,
    job_type: svc.job_type ?? null,
  };
}

