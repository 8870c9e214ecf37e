/**
 * Name -> id resolution during an apply.
 *
 * The manifest and the plan refer to everything by address; requests need ids. Ids come from the
 * live state the plan read (never from an extra GET) and from the records that creates return
 * during the apply, which are registered here as soon as they exist.
 */
import type { Address, LiveState, ResourceKind } from '../model/resource.js';
import { SERVICE_KINDS, addressOf, matchKey } from '../model/resource.js';
import type { ApiRecord } from '../live/api-record.js';

export class UnresolvedReferenceError extends Error {
  constructor(readonly address: Address, readonly wantedBy?: Address) {
    super(
      `${address} does not exist${wantedBy ? ` (needed by ${wantedBy})` : ''}: it is neither live nor created by this plan. ` +
        'Check the name in the manifest, or run plan again.',
    );
    this.name = 'UnresolvedReferenceError';
  }
}

export class IdRegistry {
  readonly #ids = new Map<string, string>();
  readonly #records = new Map<string, ApiRecord>();

  constructor(
    readonly organizationId: string,
    live?: LiveState,
    liveObjects?: Record<Address, { id: string }>,
  ) {
    for (const [addr, o] of Object.entries(liveObjects ?? {})) this.#ids.set(matchKey(addr), o.id);
    for (const r of live?.resources.values() ?? []) {
      this.#ids.set(matchKey(r.address), r.id);
      this.#records.set(matchKey(r.address), r.record as ApiRecord);
    }
  }

  set(address: Address, record: ApiRecord): void {
    this.#ids.set(matchKey(address), record.id);
    this.#records.set(matchKey(address), record);
  }

  /** `address` is the object live at `liveAddress` (renamed by the plan): its id and record. */
  alias(address: Address, liveAddress: Address): void {
    const id = this.#ids.get(matchKey(liveAddress));
    if (id !== undefined) this.#ids.set(matchKey(address), id);
    const record = this.#records.get(matchKey(liveAddress));
    if (record !== undefined) this.#records.set(matchKey(address), record);
  }

  forget(address: Address): void {
    this.#ids.delete(matchKey(address));
    this.#records.delete(matchKey(address));
  }

  has(address: Address): boolean {
    return this.#ids.has(matchKey(address));
  }

  id(address: Address, wantedBy?: Address): string {
    const id = this.#ids.get(matchKey(address));
    if (id === undefined) throw new UnresolvedReferenceError(address, wantedBy);
    return id;
  }

  record(address: Address): ApiRecord | undefined {
    return this.#records.get(matchKey(address));
  }

  /** A top-level object by kind and name (`cluster.prod`, `annotations_group.web`). */
  idOf(kind: ResourceKind, name: string, wantedBy?: Address): string {
    return this.id(addressOf(kind, name), wantedBy);
  }

  /** A service of an environment by name, whatever its kind. */
  serviceAddress(environment: Address, name: string): Address | undefined {
    for (const kind of SERVICE_KINDS) {
      const a = addressOf(kind, name, environment);
      if (this.has(a)) return a;
    }
    return undefined;
  }
}
