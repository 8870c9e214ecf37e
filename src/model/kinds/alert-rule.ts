/** The `alert_rule` kind (src/model/kinds/descriptor.ts). */
import { renamed, same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, desc, num, sortedSet, put } from '../../graph/attrs.js';
import { nameOf } from '../../live/record-helpers.js';
import { isObj } from '../../apply/body-helpers.js';
import { clean, obj, reorder, type Doc } from '../../export/manifest-helpers.js';
import { withoutKindDefaults, withoutPartDefaults } from '../../export/part-defaults.js';

export const alertRuleKind: KindDescriptor<'alert_rule'> = {
  kind: 'alert_rule',
  fromRecord(r, lookup) {
    const t = r.target ?? {};
    let target: Record<string, string>;
    if (String(t.target_type ?? '').trim() === 'CLUSTER') {
      target = { cluster: nameOf(lookup.clusters, t.target_id ?? r.cluster_id) };
    } else {
      const s = lookup.services.get(String(t.target_id));
      target = s
        ? { project: s.project, environment: s.environment, service: s.name }
        : { project: String(t.service?.project_name ?? '?'), environment: String(t.service?.environment_name ?? '?'), service: String(t.service?.name ?? `(unknown id ${String(t.target_id)})`) };
    }
    const c = r.condition ?? {};
    return {
      attrs: compact({
        name: r.name,
        description: desc(r.description),
        tag: r.tag ?? undefined,
        condition: compact({ kind: c.kind, promql: c.promql, operator: c.operator, threshold: num(c.threshold), function: c.function }),
        for_duration: r.for_duration ?? undefined,
        severity: r.severity,
        enabled: r.enabled,
        alert_receivers: sortedSet((r.alert_receiver_ids ?? []).map((id: unknown) => nameOf(lookup.alertReceivers, id))),
        presentation: r.presentation ? compact({ summary: r.presentation.summary ?? undefined, runbook_url: r.presentation.runbook_url ?? undefined }) : undefined,
        target,
      }),
    };
  },
  toRequest(a, { refs, address }) {
    // Receivers by name -> their ids; the target (immutable) is resolved by the create's writer (src/apply/writers.ts).
    if (Array.isArray(a.alert_receivers)) a.alert_receiver_ids = (a.alert_receivers as string[]).map((n) => refs.idOf('alert_receiver', n, address));
    delete a.alert_receivers;
    delete a.target;
  },
  recordToRequest(out, record) {
    if (Array.isArray(record.alert_receiver_ids)) out.alert_receiver_ids = [...record.alert_receiver_ids];
  },
  finishCreate(body) {
    // The condition's fields the API requires that a manifest may leave out.
    if (isObj(body.condition)) body.condition = { kind: 'CUSTOM', operator: 'NONE', function: 'NONE', threshold: 0, ...body.condition };
  },
  apiType: 'ALERT_RULE',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
  orgList: 'alertRules',
  refersTo: ['cluster', 'alert_receiver'],
  immutableFields: ['target'],
  requestFields: ['name', 'description', 'tag', 'condition', 'for_duration', 'severity', 'presentation', 'enabled', 'alert_receiver_ids'],
  createDefaults: { description: '', tag: '', for_duration: 'PT5M', presentation: {}, enabled: true },
  manifestDefaults: { for_duration: 'PT5M', enabled: true },
  exportWritesDefaults: true,
  ignorePaths: {
    ...same('description', 'tag', 'condition', 'condition.kind', 'condition.promql', 'condition.operator', 'condition.threshold', 'condition.function'),
    ...same('for_duration', 'severity', 'enabled', 'presentation', 'presentation.summary', 'presentation.runbook_url', 'target'),
    ...renamed('receivers', 'alert_receivers'),
  },
  attrsFromManifest(r) {
    const t = r.target;
    const target: Record<string, string> = 'cluster' in t ? { cluster: t.cluster } : { project: t.project, environment: t.environment, service: t.service };
    const attrs: Record<string, unknown> = { name: r.name };
    if (r.description !== undefined) attrs.description = desc(r.description);
    put(attrs, 'tag', r.tag);
    attrs.condition = compact({ ...r.condition });
    put(attrs, 'for_duration', r.for_duration);
    attrs.severity = r.severity;
    put(attrs, 'enabled', r.enabled);
    attrs.alert_receivers = sortedSet(r.receivers ?? []);
    if (r.presentation) attrs.presentation = compact({ ...r.presentation });
    attrs.target = target;
    return { attrs };
  },
  toManifestDoc(r) {
    const a = r.attrs;
    const c = obj(a.condition);
    const doc: Doc = {
      name: r.name,
      description: a.description,
      tag: a.tag,
      target: a.target,
      condition: clean({ ...withoutPartDefaults('alert_rule_condition', { kind: c.kind, promql: c.promql, operator: c.operator, function: c.function }), threshold: c.threshold }),
      severity: a.severity,
      receivers: a.alert_receivers,
      presentation: a.presentation === undefined ? undefined : clean(obj(a.presentation)),
    };
    Object.assign(doc, withoutKindDefaults(alertRuleKind, { for_duration: a.for_duration, enabled: a.enabled }));
    return clean(reorder(doc, ['name', 'description', 'tag', 'target', 'condition', 'for_duration', 'severity', 'enabled', 'receivers', 'presentation']));
  },
};
