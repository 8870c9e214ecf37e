/**
 * The lists a run needs and the cache does not hold, said on one line (the full-read line): a
 * count and the first few, by the names of the objects they belong to (taken from the cached
 * answers themselves), so that a user sees which manifest or which part of it the cache was not
 * made for. Pure.
 */
import { listResults } from './read.js';
import { shapeOf } from './touched.js';

/** How many lists the line names before "and N more". */
const NAMED = 3;

/** Organization list path tails as a user names them. */
const ORG_LIST_WORDS: Record<string, string> = {
  project: 'projects',
  cluster: 'clusters',
  'cluster/status': 'cluster statuses',
  containerRegistry: 'container registries',
  helmRepository: 'helm repositories',
  annotationsGroups: 'annotations groups',
  labelsGroups: 'labels groups',
  'alert-receivers': 'alert receivers',
  'alert-rules': 'alert rules',
  webhook: 'webhooks',
};

const ENV_LIST_WORDS = { services: 'services', statuses: 'service statuses', deploymentStage: 'deployment stages' } as const;

/** `(2: the organization's webhooks, the services of environment "dev")`. */
export function describeLacking(keys: readonly string[], responses: Readonly<Record<string, unknown>>): string {
  const unique = [...new Set(keys)];
  const names = namesOf(responses);
  const label = (key: string): string => {
    const s = shapeOf(key);
    const of = (id: string, word: string) => (names.has(id) ? `${names.get(id)!.kind} "${names.get(id)!.name}"` : `${word} ${id}`);
    switch (s.kind) {
      case 'org-list':
        return `the organization's ${ORG_LIST_WORDS[s.list] ?? s.list}`;
      case 'environments':
        return `the environments of ${of(s.project, 'project')}`;
      case 'env-list':
        return `the ${ENV_LIST_WORDS[s.list]} of ${of(s.env, 'environment')}`;
      case 'variables':
        return `the variables of ${of(s.parent, 'object')}`;
      default:
        return key.split('?', 1)[0]!;
    }
  };
  const shown = unique.slice(0, NAMED).map(label).join(', ');
  const more = unique.length > NAMED ? ` and ${unique.length - NAMED} more` : '';
  return `(${unique.length}: ${shown}${more})`;
}

/** Project, environment and service ids -> their kind word and name, from the cached lists. */
function namesOf(responses: Readonly<Record<string, unknown>>): Map<string, { kind: string; name: string }> {
  const out = new Map<string, { kind: string; name: string }>();
  for (const [key, body] of Object.entries(responses)) {
    const s = shapeOf(key);
    const kind = s.kind === 'org-list' && s.list === 'project' ? 'project' : s.kind === 'environments' ? 'environment' : s.kind === 'env-list' && s.list === 'services' ? 'service' : undefined;
    if (!kind) continue;
    for (const r of listResults(body)) if (typeof r?.id === 'string' && typeof r.name === 'string') out.set(r.id, { kind, name: r.name });
  }
  return out;
}
