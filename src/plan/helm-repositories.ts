/**
 * A helm service names its chart repository (`source.helm_repository.repository`); the API wants
 * the id of an organization helm repository, which only the live read knows. A name that is not
 * live is an error of the plan (apply would fail on it half-way), listing the known names.
 *
 * Repositories cannot be created through driftless: they are live-only `helm_repository.NAME`
 * resources, read when the manifest has helm services (src/live/read.ts).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type { DesiredGraph, LiveState } from '../model/resource.js';
import { addressOf, matchKey } from '../model/resource.js';
import { knownList, nearest } from '../manifest/suggest.js';

/** The repository name a desired helm service refers to, if it uses a helm repository. */
export function helmRepositoryNameOf(attrs: Record<string, unknown>): string | undefined {
  const src = attrs.source as { helm_repository?: { repository?: unknown } } | undefined;
  const name = src?.helm_repository?.repository;
  return typeof name === 'string' ? name : undefined;
}

export function checkHelmRepositoryNames(graph: DesiredGraph, live: LiveState): Diagnostic[] {
  const known = new Set<string>();
  const names: string[] = [];
  for (const l of live.resources.values()) {
    if (l.kind !== 'helm_repository') continue;
    known.add(matchKey(l.address));
    names.push(l.name);
  }
  names.sort();
  const out: Diagnostic[] = [];
  for (const d of graph.resources.values()) {
    if (d.kind !== 'helm') continue;
    const name = helmRepositoryNameOf(d.attrs);
    if (name === undefined || known.has(matchKey(addressOf('helm_repository', name)))) continue;
    const guess = nearest(name, names);
    out.push(
      error('ref.unresolved', `helm repository \`${name}\` of helm service "${d.name}" does not exist in the organization`, {
        detail:
          `${guess ? `Did you mean \`${guess}\`? ` : ''}Known helm repositories: ${knownList(names)}. ` +
          'A helm repository is created in the console (or with POST /organization/{id}/helmRepository), not by driftless.',
        address: d.address,
        range: d.source,
      }),
    );
  }
  return out;
}
