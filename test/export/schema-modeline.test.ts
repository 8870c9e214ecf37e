/**
 * The manifest schema works in editors, checked with Red Hat's YAML language server itself (the
 * server behind VS Code's YAML extension), through its programmatic API and without network: its
 * schema request service serves the schema's `$id` URL from schemas/manifest.schema.json and
 * refuses any other URL. An export of an organization built by hand (every kind of resource) is
 * validated through the modeline `export` writes: no diagnostic, in both layouts; a typo'd key
 * gets one diagnostic at its line; hover and completion show the schema's titles, descriptions and
 * examples. The examples keep their relative modeline, which the server follows to the same file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLanguageService } from 'yaml-language-server';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { manifestSchema, manifestSchemaPath } from '../../src/manifest/index.js';
import { run, startEmu, tempDir } from './helpers.js';
import { buildOrganizationByHand } from './org-fixture.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const schemaId = String(manifestSchema().$id);
const schemaFileUrl = pathToFileURL(manifestSchemaPath()).href;
const tmp = tempDir('driftless-modeline-');
const singleFile = path.join(tmp.dir, 'org.yaml');
const directory = path.join(tmp.dir, 'exported');

/**
 * Document versions: the language server caches parsed documents by URI and version across
 * instances, as an editor would between two keystrokes, so every text opened gets a new one.
 */
let version = 0;

/** A language service as an editor runs it, whose schema requests are recorded and served offline. */
function yamlLanguageServer() {
  const requested: string[] = [];
  const ls = getLanguageService({
    schemaRequestService: async (uri) => {
      requested.push(uri);
      if (uri === schemaId || uri === schemaFileUrl) return readFileSync(manifestSchemaPath(), 'utf8');
      throw new Error(`no network in tests: ${uri}`);
    },
    workspaceContext: { resolveRelativePath: (relative, resource) => new URL(relative, resource).href },
  });
  ls.configure({ validate: true, hover: true, completion: true });
  const open = (file: string, text = readFileSync(file, 'utf8')) => TextDocument.create(pathToFileURL(file).href, 'yaml', ++version, text);
  return { ls, requested, open };
}

/** The line and column of the first key `key:` of the text (after `after`, a line number). */
function keyAt(text: string, key: string, after = 0): { line: number; character: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((l, i) => i >= after && new RegExp(`^\\s*(- )?${key}:`).test(l));
  expect(line, `${key}: in the export`).toBeGreaterThanOrEqual(0);
  return { line, character: lines[line]!.indexOf(`${key}:`) + 1 };
}

beforeAll(async () => {
  const emu = await startEmu();
  try {
    await buildOrganizationByHand(emu);
    expect((await run(['export', '--out', singleFile], emu.env())).code).toBe(0);
    expect((await run(['export', '--out', directory, '--layout', 'directory'], emu.env())).code).toBe(0);
  } finally {
    await emu.close();
  }
}, 60_000);

afterAll(() => tmp.cleanup());

describe('the YAML language server on an exported manifest', () => {
  it('finds no problem in an export, one file or a directory, with the schema file its relative modeline points at (offline)', async () => {
    const files = [singleFile, ...readdirSync(directory).map((f) => path.join(directory, f))];
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const { ls, requested, open } = yamlLanguageServer();
      expect(await ls.doValidation(open(file), false), file).toEqual([]);
      // The schema was applied (no schema would mean no diagnostics), and from the installation's
      // file the modeline's relative path leads to: no URL, no network.
      expect(requested, file).toEqual([schemaFileUrl]);
    }
  });

  it("reports a typo'd key once, at its line, naming it", async () => {
    const { ls, open } = yamlLanguageServer();
    const text = readFileSync(singleFile, 'utf8');
    const at = keyAt(text, 'timezone');
    const lines = text.split('\n');
    lines[at.line] = lines[at.line]!.replace('timezone:', 'time_zone:');
    const diagnostics = await ls.doValidation(open(singleFile, lines.join('\n')), false);
    expect(diagnostics.map((d) => ({ line: d.range.start.line, character: d.range.start.character, message: d.message }))).toEqual([
      { line: at.line, character: at.character - 1, message: expect.stringContaining('time_zone') },
    ]);
  });

  it('shows the title, the description and the examples of a key on hover', async () => {
    const { ls, open } = yamlLanguageServer();
    const text = readFileSync(singleFile, 'utf8');
    const cron = (manifestSchema().definitions as any).job.properties.schedule.properties.cron.properties;
    for (const key of ['scheduled_at', 'timezone']) {
      const hover = await ls.doHover(open(singleFile, text), keyAt(text, key));
      const shown = (hover?.contents as { value: string }).value;
      expect(shown).toContain(`#### ${cron[key].title}`);
      expect(shown).toContain(cron[key].description.slice(0, 30));
      for (const example of cron[key].examples) expect(shown).toContain(example.replaceAll('"', ''));
    }
    const container = text.split('\n').findIndex((l) => /^\s*(- )?type: container$/.test(l));
    expect(container).toBeGreaterThan(0);
    const tag = await ls.doHover(open(singleFile, text), keyAt(text, 'tag', container));
    expect((tag?.contents as { value: string }).value).toContain('#### Image tag');
  });

  it('completes the keys a mapping lacks, with their description', async () => {
    const { ls, open } = yamlLanguageServer();
    const text = readFileSync(singleFile, 'utf8');
    const at = keyAt(text, 'scheduled_at');
    const lines = text.split('\n');
    const indent = /^\s*/.exec(lines[at.line]!)![0];
    lines.splice(at.line + 1, 0, indent);
    const completion = await ls.doComplete(open(singleFile, lines.join('\n')), { line: at.line + 1, character: indent.length }, false);
    const cron = (manifestSchema().definitions as any).job.properties.schedule.properties.cron.properties;
    const offered = completion.items.filter((i) => i.label in cron);
    // The fixture's cron job sets scheduled_at, timezone and arguments, not entrypoint.
    expect(offered.map((i) => i.label)).toContain('entrypoint');
    expect(offered.map((i) => i.label)).not.toContain('scheduled_at');
    for (const i of offered) expect(i.documentation, i.label).toEqual(cron[i.label].description);
  });
});

describe('the examples', () => {
  const files = ['minimal', 'realistic'].flatMap((d) =>
    readdirSync(path.join(repoRoot, 'examples', d))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => path.join(repoRoot, 'examples', d, f)),
  );

  it.each(files.map((f) => [path.relative(repoRoot, f), f]))('%s keeps its relative modeline, which the language server follows to schemas/ with no problem found', async (_name, file) => {
    const { ls, requested, open } = yamlLanguageServer();
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(`# yaml-language-server: $schema=${path.relative(path.dirname(file), manifestSchemaPath())}`);
    expect(await ls.doValidation(open(file), false)).toEqual([]);
    expect(requested).toEqual([schemaFileUrl]);
  });
});

describe('environment templates in an editor', () => {
  const file = path.join(tmp.dir, 'templates.yaml');
  const text = `# yaml-language-server: $schema=${schemaId}
version: 1
projects:
  - name: shop
    templates:
      - name: web-stack
        variables:
          - key: LOG_LEVEL
            value: info
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
    environments:
      - name: production
        cluster: production-cluster
        template: web-stack
        exclude_services: [debug]
        overrides:
          services:
            web:
              tag: "1.28"
              ports:
                - name: http
                  publicly_accessible: true
          variables:
            - key: LOG_LEVEL
              value: warn
`;

  it('accepts a template and partial overrides (no field of an override is required)', async () => {
    const { ls, requested, open } = yamlLanguageServer();
    expect(await ls.doValidation(open(file, text), false)).toEqual([]);
    expect(requested).toEqual([schemaId]);
  });

  it("reports a typo'd key of an override at its line, and a wrong type", async () => {
    const { ls, open } = yamlLanguageServer();
    const typo = text.replace('              tag: "1.28"', '              tagg: "1.28"').replace('              value: warn', '              value: [warn]');
    const diagnostics = await ls.doValidation(open(file, typo), false);
    const lines = typo.split('\n');
    expect(diagnostics.map((d) => d.range.start.line).sort((a, b) => a - b)).toEqual([lines.findIndex((l) => l.includes('tagg:')), lines.findIndex((l) => l.includes('value: [warn]'))]);
    expect(diagnostics.some((d) => d.message.includes('tagg'))).toBe(true);
  });

  it('completes the fields of a service inside an override, with their description, and shows the title of `template` on hover', async () => {
    const { ls, open } = yamlLanguageServer();
    const lines = text.split('\n');
    const tagLine = lines.findIndex((l) => l.includes('tag: "1.28"'));
    lines.splice(tagLine + 1, 0, '              ');
    const completion = await ls.doComplete(open(file, lines.join('\n')), { line: tagLine + 1, character: 14 }, false);
    const override = (manifestSchema().definitions as any).service_override.properties;
    const labels = completion.items.map((i) => i.label);
    for (const key of ['cpu', 'memory', 'max_running_instances', 'image_name']) expect(labels, key).toContain(key);
    expect(labels).not.toContain('tag'); // already set
    expect(labels).not.toContain('type'); // an override cannot change the kind
    expect(completion.items.find((i) => i.label === 'cpu')?.documentation).toEqual(override.cpu.description);

    const at = keyAt(text, 'template');
    const hover = await ls.doHover(open(file, text), at);
    expect((hover?.contents as { value: string }).value).toContain('#### Template');
  });
});
