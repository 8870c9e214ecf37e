/**
 * An in-memory, read-only ApiPort for the tests of the live-state readers (src/live/read.ts,
 * src/live/refresh.ts): GETs answered from lists by request key, one organization's audit log, an
 * optional latency, and what the tests look at (every request, when each was sent and answered,
 * how many were in flight at once). Writes are refused: these readers never write, so a write
 * is a bug the test should see.
 */
import type { ApiPort, Query } from '../../src/live/api-port.js';
import { toNanos, type AuditEvent } from '../../src/live/audit-log.js';
import { listResults, type LiveRecords, type OrgListName } from '../../src/live/read.js';
import { requestKey } from '../../src/live/touched.js';
import { HttpError } from '../apply/fake-api.js';

/** A port whose writes are refused; the reads are the subclass's. */
export abstract class ReadOnlyPort implements ApiPort {
  abstract get<T>(path: string, query?: Query): Promise<T>;
  abstract readonly requestCount: number;
  post<T>(): Promise<T> {
    return Promise.reject(new Error('read only'));
  }
  put<T>(): Promise<T> {
    return Promise.reject(new Error('read only'));
  }
  delete(): Promise<void> {
    return Promise.reject(new Error('read only'));
  }
}

/**
 * The API's answer to GET /organization/{id}/events: newest first, from `fromTimestamp` on (to the
 * nanosecond, as the API compares), one event when `pageSize` is 1 (the cursor's probe).
 */
export function auditLogPage(events: readonly AuditEvent[], query?: Query): unknown {
  const from = query?.fromTimestamp !== undefined ? toNanos(String(query.fromTimestamp)) : undefined;
  const newest = [...events].reverse().filter((e) => from === undefined || BigInt(Date.parse(e.timestamp)) * 1_000_000n >= from);
  return { events: query?.pageSize === 1 ? newest.slice(0, 1) : newest, organization_max_limit_reached: false, links: {} };
}

export interface ReadOnlyApiOptions<C> {
  /** The answers, by request key (src/live/touched.ts `requestKey`); the tests change them between runs. */
  lists: Record<string, unknown>;
  /** The organization whose audit log `events` is (GET /organization/{org}/events); none: no log. */
  org?: string;
  /** What each GET waits for before it is answered (a timer, a microtask); none: answered at once. */
  wait?: (key: string) => Promise<unknown>;
  /** The answer to a GET of a key not in `lists`; none: a 404. */
  missing?: (path: string) => unknown;
  /** The API's clock in ms, sent as its Date header (to the second); none: no Date header. */
  clockMs?: () => number;
  /** What `calls` records of each GET; none: its request key. */
  record?: (path: string, query: Query | undefined, key: string) => C;
}

export class ReadOnlyApi<C = string> extends ReadOnlyPort {
  readonly lists: Record<string, unknown>;
  /** What `record` made of each GET, in the order sent (the tests empty it between runs). */
  readonly calls: C[] = [];
  /** `sent {key}` and `answered {key}`, in the order they happened. */
  readonly log: string[] = [];
  /** The audit log of `org`, oldest first. */
  readonly events: AuditEvent[] = [];
  /** The answer to a GET of the audit log; a test replaces it to make the log fail or lie. */
  logAnswer: (query?: Query) => unknown = (query) => auditLogPage(this.events, query);
  /** Called as each GET is sent, with its request key. */
  onGet?: (key: string) => void;
  /** The most GETs in flight at once. */
  maxInFlight = 0;
  /** The most GETs in flight at once, besides the organization and its audit log. */
  maxListsInFlight = 0;
  private inFlight = 0;
  private listsInFlight = 0;

  constructor(private readonly options: ReadOnlyApiOptions<C>) {
    super();
    this.lists = options.lists;
  }

  get requestCount(): number {
    return this.calls.length;
  }

  /** The API's Date header, when it has a clock: whole seconds, as HTTP dates are. */
  serverDate(): Date | undefined {
    const ms = this.options.clockMs?.();
    return ms === undefined ? undefined : new Date(Math.floor(ms / 1000) * 1000);
  }

  async get<T>(path: string, query?: Query): Promise<T> {
    const key = requestKey(path, query);
    this.calls.push(this.options.record ? this.options.record(path, query, key) : (key as C));
    this.log.push(`sent ${key}`);
    this.onGet?.(key);
    const ofLog = this.options.org !== undefined && path === `/organization/${this.options.org}/events`;
    const list = path !== '/organization' && !ofLog;
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    if (list) this.maxListsInFlight = Math.max(this.maxListsInFlight, ++this.listsInFlight);
    try {
      if (this.options.wait) await this.options.wait(key);
      this.log.push(`answered ${key}`);
      if (ofLog) return this.logAnswer(query) as T;
      if (key in this.lists) return structuredClone(this.lists[key]) as T;
      if (this.options.missing) return this.options.missing(path) as T;
      throw new HttpError(404, `no ${key}`);
    } finally {
      this.inFlight--;
      if (list) this.listsInFlight--;
    }
  }
}

/** For `missing`: every list not given is empty, and the organization is `org`, named acme. */
export const emptyBesides = (org: string) => (path: string) => (path === '/organization' ? { results: [{ id: org, name: 'acme' }] } : { results: [] });

/** A wait of `ms` on a timer, as an answer over a network takes. */
export const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A reader in the shape of readLiveRecords over the tree of `org`: the organization, its projects
 * with the other organization-level lists of `orgLists` (name: path) at once, then each project's
 * environments, each environment's services and statuses, each service's APPLICATION variables,
 * each level waiting for the one above it.
 */
export async function readTree(port: ApiPort, org: string, orgLists: Partial<Record<OrgListName, string>> = {}): Promise<LiveRecords> {
  const organization = listResults(await port.get('/organization'))[0]!;
  const others = Object.entries(orgLists);
  const [projects, ...more] = await Promise.all([port.get(`/organization/${org}/project`), ...others.map(([, path]) => port.get(path))]).then((xs) => xs.map(listResults));
  const lists: LiveRecords['lists'] = { projects: projects!, ...Object.fromEntries(others.map(([name], i) => [name, more[i]!])) };
  const out: LiveRecords = { organization, lists, environments: new Map(), variables: new Map(), services: new Map(), stages: new Map(), statuses: new Map() };
  for (const p of projects!) {
    const envs = listResults(await port.get(`/project/${p.id}/environment`));
    out.environments.set(p.id, envs);
    for (const e of envs) {
      const services = listResults(await port.get(`/environment/${e.id}/services`));
      out.services.set(e.id, services);
      out.statuses.set(e.id, await port.get(`/environment/${e.id}/statuses`));
      for (const s of services) out.variables.set(s.id, listResults(await port.get('/variable', { parent_id: s.id, scope: 'APPLICATION' })).filter((v) => v.scope === 'APPLICATION'));
    }
  }
  return out;
}
