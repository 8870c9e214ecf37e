/**
 * What a run leaves in the cache: the UNION of what it read and what the cache already held and
 * is still current. Several manifests (one team's files, `export --project`, a `--target` run)
 * share one cache: a run that needs fewer lists than the last one must not drop the others, or
 * the next run of the whole manifest would be a full read.
 *
 * A held list that an event since made stale, and that this run did not need, is dropped rather
 * than re-read: its answer is replaced by `null` (STALE), which says "a run using this cache needs
 * this list: read it" to the next run, so that the run needing it reads that one list instead of
 * taking it for a list the cache never held (a full read). A STALE list of an object the audit log
 * says was deleted is forgotten (lists under it may linger: nobody asks for them). Pure.
 */
import { shapeOf, type Staleness } from './touched.js';

/** The answer kept for a list to re-read before use. */
export const STALE = null;

export function unionOfResponses(
  held: Readonly<Record<string, unknown>>,
  staleness: Staleness,
  read: Readonly<Record<string, unknown>>,
  deletedIds: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, body] of Object.entries(held)) {
    if (key in read) continue;
    const owner = ownerOf(key);
    // The lists of a deleted object are forgotten, current or not: nothing can read them again.
    if (owner !== undefined && deletedIds.has(owner)) continue;
    if (body !== STALE && !staleness.isStale(key)) out[key] = body;
    else if (owner !== undefined) out[key] = STALE;
  }
  return Object.assign(out, read);
}

/** The object whose list a key reads ('' for the organization's own lists). */
function ownerOf(key: string): string | undefined {
  const s = shapeOf(key);
  switch (s.kind) {
    case 'org-list':
      return '';
    case 'environments':
      return s.project;
    case 'env-list':
      return s.env;
    case 'variables':
      return s.parent;
    default:
      // The organization record and requests the cache does not know: never kept.
      return undefined;
  }
}
