/** The `alert_rule` kind (src/model/kinds/descriptor.ts). */
import { renamed, same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';
import { compact, desc, put, sortedSet } from '../../graph/attrs.js';
import { clean, obj, reorder, type Doc } from '../../export/manifest-helpers.js';
import { withoutKindDefaults, withoutPartDefaults } from '../../export/part-defaults.js';

export const alertRuleKind: KindDescriptor<'alert_rule'> = {
  kind: 'alert_rule',
  apiType: 'ALERT_RULE',
  auditedAs: 'subTarget',
  caseInsensitiveName: true,
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
