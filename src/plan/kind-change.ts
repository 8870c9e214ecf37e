/**
 * A service re-declared under the same name with another kind (an application that becomes a
 * container): the API refuses two services with one name in an environment and has no way to
 * change a service's kind, so the only way there is a replacement: the live service is deleted,
 * and only once it is gone, the new one created (src/apply/apply.ts, `replace`). The plan shows it
 * as one replace at the new address (`replaces` names the live object), guarded as any
 * replacement of a running service (`--allow-replace` once deployed) and, when the old service is
 * a database, as a loss of data (`--allow-data-loss`, backup first). Pure.
 */
import type { DesiredResource, LiveResource } from '../model/resource.js';
import { holdsData } from '../model/kinds/index.js';
import { withArticle } from '../render/words.js';
import { hasBeenDeployed } from './guards.js';
import type { GuardRequirement } from './types.js';

export interface KindReplacement {
  reason: string;
  requires: GuardRequirement[];
}

export function kindReplacement(d: DesiredResource, old: LiveResource): KindReplacement {
  const requires: GuardRequirement[] = [];
  if (holdsData(old.kind)) requires.push({ guard: 'allow_data_loss', reason: `destroys the data of the ${old.kind} "${old.name}"` });
  if (hasBeenDeployed(old)) requires.push({ guard: 'allow_replace', reason: `replaces the deployed ${old.kind} "${old.name}" with ${withArticle(d.kind)}` });
  return {
    reason: `${old.address} is ${withArticle(old.kind)}: a service cannot change its kind in place, so it is deleted, then the ${d.kind} created`,
    requires,
  };
}
