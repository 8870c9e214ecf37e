/**
 * What the schema cannot require of one file when an object may be declared in several: an
 * environment's `cluster` may be written in any one of the files that declare the environment (a
 * team's file lists its services under `- name: production` and leaves the cluster to the platform
 * team's file), so it is required of the environment over all the files, with an error that names
 * every place the environment was declared.
 *
 * It reads the parsed files, not the merged manifest: a file that fails the schema is left out of
 * the merge, yet what it declares is known, and an environment it alone declares without a cluster
 * is reported with its other problems, as the schema reported it when it required the key.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { formatRange } from '../diag/excerpt.js';
import { addressOf } from '../model/resource.js';
import { error } from './codes.js';
import { sourceOf } from './types.js';

/** Fields of an environment required of one of its declarations (the schema leaves them optional). */
const ENVIRONMENT_REQUIRED = [{ key: 'cluster', what: 'the name of the cluster the environment runs on (it cannot change once the environment exists)' }] as const;

export interface ParsedFile {
  file: string;
  /** The file's top-level mapping as parsed, schema-valid or not. */
  value: Record<string, unknown>;
}

interface EnvironmentDeclarations {
  project: string;
  environment: string;
  /** Each declaration: its position is asked for only when it is reported (positions may be built lazily). */
  declarations: object[];
  written: Set<string>;
}

export function checkCompleteness(files: readonly ParsedFile[]): Diagnostic[] {
  const environments = new Map<string, EnvironmentDeclarations>();
  for (const { value } of files) {
    for (const p of listOf(value.projects)) {
      if (typeof p.name !== 'string') continue;
      for (const e of listOf(p.environments)) {
        if (typeof e.name !== 'string') continue;
        const id = `${p.name.toLowerCase()}\u0000${e.name.toLowerCase()}`;
        let entry = environments.get(id);
        if (!entry) environments.set(id, (entry = { project: p.name, environment: e.name, declarations: [], written: new Set() }));
        entry.declarations.push(e);
        for (const { key } of ENVIRONMENT_REQUIRED) if (e[key] !== undefined) entry.written.add(key);
      }
    }
  }
  const out: Diagnostic[] = [];
  for (const { project, environment, declarations, written } of environments.values()) {
    for (const { key, what } of ENVIRONMENT_REQUIRED) {
      if (written.has(key)) continue;
      const places = declarations.map((e) => sourceOf(e)).filter((r): r is SourceRange => r !== undefined);
      const where =
        places.length > 1
          ? `It is declared at ${places.map(formatRange).join(', ')}, and none of them writes \`${key}\`: write it in one of them`
          : `Write it here, or in another file of the manifest directory that declares environment \`${environment}\` of project \`${project}\``;
      out.push(
        error('schema.missing-key', `environment \`${environment}\` of project \`${project}\` is missing \`${key}\``, {
          detail: `\`${key}\` is ${what}. ${where}.`,
          ...(places[0] ? { range: places[0] } : {}),
          address: addressOf('environment', environment, addressOf('project', project)),
        }),
      );
    }
  }
  return out;
}

function listOf(v: unknown): Array<Record<string, unknown>> {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x)) : [];
}
