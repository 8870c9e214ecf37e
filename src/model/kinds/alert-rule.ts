/** The `alert_rule` kind (src/model/kinds/descriptor.ts). */
import { renamed, same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

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
};
