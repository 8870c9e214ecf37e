/**
 * What the graph build and its sibling modules (services, variables) share: the builder they all
 * add to and the checks they all apply. In a module of its own so that build.ts can import its
 * helpers without them importing build.ts back (an import cycle: a module's exports could then be
 * read before it has run).
 */
import type { SourceRange } from '../diag/diagnostic.js';
import { error, type Diagnostic } from '../diag/diagnostic.js';
import { withArticle } from '../render/words.js';
import type { IgnoresChanges, MaybeSecret, Protectable, VariableSpec } from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import type { Address, DesiredResource } from '../model/resource.js';
import { SecretValue } from '../model/secret.js';
import { DESCRIPTION_MAX_LENGTH, markerLength } from '../plan/fingerprint.js';

/** A variable declared in the walk, linked (alias, override) once the whole manifest is walked. */
export interface PendingVariable {
  spec: VariableSpec;
  resource: DesiredResource;
  scope: DesiredResource;
}

/** Mutable state of one build; helpers in sibling modules add to it. */
export interface GraphBuilder {
  resources: Map<Address, DesiredResource>;
  diagnostics: Diagnostic[];
  pendingVariables: PendingVariable[];
  /** Clone sources not yet declared when their clone was walked. */
  pendingClones: Array<{ address: Address; source: Address; range: SourceRange | undefined }>;
  /**
   * Adds a resource; `spec` is the manifest object it comes from (for its `ignore_changes` and
   * `protect`), `sourceFrom` the object whose position is the resource's `source`.
   */
  add(r: Omit<DesiredResource, 'dependsOn' | 'source'> & { dependsOn?: Address[]; sourceFrom: object }, spec?: IgnoresChanges & Protectable): DesiredResource | undefined;
}

/** A sensitive value: always a SecretValue, even when the manifest wrote it in clear. */
export function secret(v: MaybeSecret | undefined): SecretValue | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? new SecretValue(v) : v;
}

/** A description that must leave room for the fingerprint marker of these sensitive fields. */
export function checkDescription(
  b: GraphBuilder,
  description: string | undefined,
  sensitive: readonly string[],
  address: Address,
  /** Where the description is written: asked for only when it is too long. */
  rangeOf: () => SourceRange | undefined,
): void {
  if (description === undefined) return;
  const room = DESCRIPTION_MAX_LENGTH - markerLength(sensitive);
  if (description.length > room) {
    b.diagnostics.push(
      error('graph.description-too-long', `description is ${description.length} characters; at most ${room} are allowed here`, {
        detail:
          sensitive.length > 0
            ? `The API limits descriptions to ${DESCRIPTION_MAX_LENGTH} characters, and driftless appends ${withArticle(`${markerLength(sensitive)}-character`)} fingerprint marker to records holding secrets.`
            : `The API limits descriptions to ${DESCRIPTION_MAX_LENGTH} characters.`,
        address,
        range: rangeOf(),
      }),
    );
  }
}

/**
 * Gives `res` its `source`, the position of the manifest object `from`, read when first asked for:
 * a plan without a diagnostic reads few, and reading one builds the positions of its file
 * (src/manifest/lazy-positions.ts). Then an ordinary property, as if assigned.
 */
export function lazySource(res: { source?: SourceRange }, from: object, field?: string): void {
  lazyProperty(res, 'source', () => sourceOf(from, field));
}

/** `obj[key]`, computed on first read (an enumerable property like any other, then a plain one). */
function lazyProperty(obj: object, key: string, compute: () => unknown): void {
  const settle = (value: unknown) => Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(obj, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = compute();
      settle(value);
      return value;
    },
    set: settle,
  });
}
