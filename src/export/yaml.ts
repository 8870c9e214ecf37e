/**
 * The exported manifest as YAML files: one file, or a directory with the organization-level
 * objects in `organization.yaml`, each project's own attributes and variables in
 * `project-<name>.yaml` and each of its environments in `project-<name>.<environment>.yaml` (the
 * loader merges a project and an environment declared across the files of a directory), so that
 * each environment's file can have its own owners (CODEOWNERS) and reviews. Each file starts with the schema modeline, a header and, when it reads
 * secrets, the list of environment variables it needs (names only: values are never known).
 */
import path from 'node:path';
import { stringify } from 'yaml';
import { manifestSchema, manifestSchemaPath } from '../manifest/schema-validate.js';
import type { Doc, ExportResult } from './to-manifest.js';

export type ExportLayout = 'file' | 'directory';

export interface ExportFile {
  /** File name (relative to the output directory for the directory layout). */
  name: string;
  text: string;
}

export const SINGLE_FILE_NAME = 'driftless.yaml';

const ORG_KEYS = ['scope', 'organization', 'annotation_groups', 'label_groups', 'alert_receivers', 'alert_rules', 'webhooks'] as const;

/**
 * The schema's `$id`: the URL of schemas/manifest.schema.json in the published package at this
 * version on a public CDN (it resolves once the package is published; `export` writes the relative
 * path of manifestSchemaPathFrom instead, which resolves offline).
 */
export function manifestSchemaUrl(): string {
  return String(manifestSchema().$id);
}

/**
 * The modeline's schema for files written in `dir`: the relative path from there to the schema of
 * this installation (schemas/manifest.schema.json of the installed package, or of the checkout).
 * It resolves offline and before the package is on a registry, where the `$id` URL does not
 * (jsDelivr serves only published packages); committed in a repository that installs driftless
 * as a dependency, it points into that repository's node_modules on every clone.
 */
export function manifestSchemaPathFrom(dir: string, schemaFile: string = manifestSchemaPath()): string {
  const rel = path.relative(dir, schemaFile).split(path.sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * The first line of every exported file: editors with the YAML language server (VS Code's YAML
 * extension, JetBrains, Neovim's yamlls, ...) validate, complete and document the file with the
 * manifest schema, without any editor setting.
 */
export function schemaModeline(schemaUrl: string): string {
  return `# yaml-language-server: $schema=${schemaUrl}`;
}

export function renderExport(result: ExportResult, layout: ExportLayout, header: string, schemaUrl: string = manifestSchemaUrl()): ExportFile[] {
  const m = result.manifest;
  const fileText = (doc: Doc, head: string) => `${schemaModeline(schemaUrl)}\n#\n${fileBody(doc, head)}`;
  if (layout === 'file') return [{ name: SINGLE_FILE_NAME, text: fileText(m, header) }];
  const files: ExportFile[] = [];
  const org: Doc = { version: 1 };
  for (const k of ORG_KEYS) if (m[k] !== undefined) org[k] = m[k];
  if (Object.keys(org).length > 1) files.push({ name: 'organization.yaml', text: fileText(org, header) });
  // Project stems never hold a dot and environment stems always do: the two cannot collide.
  const used = new Set<string>();
  const unique = (base: string) => {
    let stem = base;
    for (let i = 2; used.has(stem); i++) stem = `${base}-${i}`;
    used.add(stem);
    return stem;
  };
  for (const p of (m.projects ?? []) as Doc[]) {
    // The project's own attributes and variables in one file, each environment in its own: the
    // loader merges a project (and an environment) that several files of a directory declare.
    const { environments, ...own } = p;
    const stem = unique(`project-${slug(String(p.name), 'project')}`);
    files.push({ name: `${stem}.yaml`, text: fileText({ version: 1, projects: [own] }, header) });
    for (const e of (environments ?? []) as Doc[]) {
      const envStem = unique(`${stem}.${slug(String(e.name), 'environment')}`);
      files.push({ name: `${envStem}.yaml`, text: fileText({ version: 1, projects: [{ name: p.name, environments: [e] }] }, header) });
    }
  }
  if (files.length === 0) files.push({ name: 'organization.yaml', text: fileText({ version: 1 }, header) });
  return files;
}

/** A file-name part: lower case, letters and digits, dashes between (never a dot: the separator). */
function slug(name: string, fallback: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s === '' ? fallback : s;
}

/** The header comment (and the environment variables to set), then the YAML. */
function fileBody(doc: Doc, header: string): string {
  const body = stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
  const envs = [...new Set([...body.matchAll(/(?<!\$)\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((x) => x[1]!))];
  const lines = header.split('\n').map((l) => `# ${l}`.trimEnd());
  if (envs.length > 0) {
    lines.push('#', '# Secret values cannot be read from the API; set these environment variables before `driftless plan`:');
    for (const e of envs) lines.push(`#   ${e}`);
  }
  return `${lines.join('\n')}\n${body}`;
}
