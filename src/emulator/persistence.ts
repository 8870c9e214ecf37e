/**
 * Persistence for `--data FILE`: every acknowledged write survives a restart and a SIGKILL, and the
 * file is never left corrupt.
 *
 * Two files: FILE holds a snapshot of the whole state, replaced only by atomic rename (write
 * FILE.tmp, fsync, rename, fsync the directory); FILE.journal is a write-ahead journal of JSON lines,
 * one per changed record, appended and fdatasync'ed before the HTTP response is sent. On start the
 * journal is replayed over the snapshot (replay is idempotent: each line sets or deletes one key) and a
 * torn last line, the only possible damage from a kill during a write, is dropped: it was never
 * acknowledged. When the journal grows large it is folded into a new snapshot.
 *
 * Changes are noticed without help from route code: the state is wrapped in proxies that record
 * which (collection, key) pairs were assigned or deleted. A record mutated in place is therefore only
 * persisted once it is assigned back (`state.services[id] = rec`), or at the next snapshot.
 */
import {
  fdatasync,
  closeSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readFileSync, renameSync, writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { EmulatorState } from './state.js';

export interface JournalEntry {
  /** Collection (top-level key of the state); null when a top-level key itself was replaced. */
  c: string | null;
  k: string;
  v?: unknown;
  d?: 1;
}

export interface TrackedState {
  state: EmulatorState;
  /** The (collection, key) pairs changed since the last call, with their current values. */
  takeDirty(): JournalEntry[];
}

/** Wraps a state document so that assignments and deletions are recorded. */
export function trackState(raw: EmulatorState): TrackedState {
  const dirty = new Map<string, { c: string | null; k: string }>();
  const proxies = new Map<string, object>();
  const rawAny = raw as unknown as Record<string, any>;

  const collectionProxy = (key: string, target: object): object => {
    let p = proxies.get(key);
    if (p && (p as any).__target === target) return p;
    p = new Proxy(target, {
      get(t, prop, recv) {
        if (prop === '__target') return t;
        return Reflect.get(t, prop, recv);
      },
      set(t, prop, value) {
        if (typeof prop === 'string') dirty.set(`${key}\u0000${prop}`, { c: key, k: prop });
        return Reflect.set(t, prop, value);
      },
      deleteProperty(t, prop) {
        if (typeof prop === 'string') dirty.set(`${key}\u0000${prop}`, { c: key, k: prop });
        return Reflect.deleteProperty(t, prop);
      },
    });
    proxies.set(key, p);
    return p;
  };

  const state = new Proxy(rawAny, {
    get(t, prop) {
      const v = t[prop as string];
      // Only the keyed collections are wrapped; the organization record and the arrays are
      // replaced whole (`state.organization = {...}`), which the set trap below records. Keeping
      // them unwrapped lets code structuredClone them (a Proxy cannot be cloned).
      if (typeof prop === 'string' && v && typeof v === 'object' && !Array.isArray(v) && prop !== 'organization') return collectionProxy(prop, v);
      return v;
    },
    set(t, prop, value) {
      if (typeof prop === 'string') dirty.set(`\u0000${prop}`, { c: null, k: prop });
      t[prop as string] = value;
      return true;
    },
  }) as unknown as EmulatorState;

  return {
    state,
    takeDirty() {
      const out: JournalEntry[] = [];
      for (const { c, k } of dirty.values()) {
        const holder = c === null ? rawAny : rawAny[c];
        if (holder && Object.prototype.hasOwnProperty.call(holder, k)) out.push({ c, k, v: holder[k] });
        else out.push({ c, k, d: 1 });
      }
      dirty.clear();
      return out;
    },
  };
}

export function applyJournalEntry(raw: Record<string, any>, e: JournalEntry): void {
  if (e.c === null) {
    if (e.d) delete raw[e.k];
    else raw[e.k] = e.v;
    return;
  }
  const holder = (raw[e.c] ??= {});
  if (e.d) delete holder[e.k];
  else holder[e.k] = e.v;
}

export class DataFile {
  readonly path: string;
  readonly journalPath: string;
  #journalFd: number | undefined;
  #journalBytes = 0;
  /** Journal size that triggers a new snapshot. */
  readonly compactAfterBytes: number;

  constructor(path: string, compactAfterBytes = 16 * 1024 * 1024) {
    this.path = path;
    this.journalPath = `${path}.journal`;
    this.compactAfterBytes = compactAfterBytes;
  }

  /** Reads the snapshot and replays the journal; undefined when there is no data yet. */
  load(): EmulatorState | undefined {
    let state: Record<string, any> | undefined;
    if (existsSync(this.path)) {
      const text = readFileSync(this.path, 'utf8');
      try {
        state = JSON.parse(text);
      } catch {
        throw new Error(`data file ${this.path} is not a driftless emulator state (invalid JSON)`);
      }
      if (!state || typeof state !== 'object' || state.version !== 1 || !state.organization) {
        throw new Error(`data file ${this.path} is not a driftless emulator state (expected version 1 with an organization)`);
      }
    }
    if (existsSync(this.journalPath)) {
      const text = readFileSync(this.journalPath, 'utf8');
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i];
        if (!line) continue;
        let entry: JournalEntry;
        try {
          entry = JSON.parse(line);
        } catch {
          break; // torn tail from a kill mid-write: never acknowledged
        }
        if (!state) throw new Error(`data file ${this.path} is missing but its journal exists`);
        applyJournalEntry(state, entry);
      }
    }
    return state as EmulatorState | undefined;
  }

  /** Writes a fresh snapshot atomically and empties the journal. */
  snapshot(raw: EmulatorState): void {
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeAll(fd, Buffer.from(JSON.stringify(raw)));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    fsyncDir(dirname(this.path));
    // Only now may the journal go: its entries are all in the snapshot.
    const jfd = this.#openJournal();
    ftruncateSync(jfd, 0);
    fsyncSync(jfd);
    this.#journalBytes = 0;
  }

  /** Appends entries and waits for them to reach the disk. */
  append(entries: JournalEntry[], raw: EmulatorState): void {
    if (entries.length === 0) return;
    const buf = Buffer.from(entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const fd = this.#openJournal();
    writeAll(fd, buf);
    fdatasyncSync(fd);
    this.#journalBytes += buf.length;
    if (this.#journalBytes > this.compactAfterBytes) this.snapshot(raw);
  }

  /**
   * Group commit: writes the entries now (so the journal keeps request order) and resolves once an
   * fdatasync that started after this write has finished. Requests arriving while a sync runs share
   * the next one, so N concurrent writes cost about two fsyncs instead of N.
   */
  async appendGrouped(entries: JournalEntry[], raw: EmulatorState): Promise<void> {
    if (entries.length === 0) return this.#syncing; // a read may still wait for an earlier write's sync
    const buf = Buffer.from(entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    writeAll(this.#openJournal(), buf);
    this.#journalBytes += buf.length;
    await this.#syncAfterWrite();
    if (this.#journalBytes > this.compactAfterBytes && !this.#syncing) this.snapshot(raw);
  }

  #syncing: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  #syncAfterWrite(): Promise<void> {
    if (!this.#syncing) {
      const fd = this.#openJournal();
      this.#syncing = new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve()))).finally(() => {
        this.#syncing = undefined;
      });
      return this.#syncing;
    }
    // The running sync may have started before our write: wait for the one after it.
    this.#next ??= this.#syncing.then(() => {
      this.#next = undefined;
      return this.#syncAfterWrite();
    });
    return this.#next;
  }

  /** Resolves when no fdatasync is running or queued (before a final snapshot and close). */
  async settled(): Promise<void> {
    while (this.#syncing || this.#next) await (this.#next ?? this.#syncing)?.catch(() => {});
  }

  close(): void {
    if (this.#journalFd !== undefined) closeSync(this.#journalFd);
    this.#journalFd = undefined;
  }

  #openJournal(): number {
    this.#journalFd ??= openSync(this.journalPath, 'a', 0o600);
    return this.#journalFd;
  }
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}
