/**
 * Parses the `variable` blocks of Terraform files, for parseTerraformVariablesFromGitRepo. Only
 * the attributes the API reports are read (default, description, sensitive, nullable); nested
 * blocks such as `validation {}` are skipped. Strings and heredoc-free HCL are enough for the
 * fixture repositories (see fixtures/README.md).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, normalize } from 'node:path';

export interface TerraformVariableDefinition {
  key: string;
  sensitive: boolean;
  nullable: boolean;
  default: string | null;
  description: string | null;
  source: string;
}

export const FIXTURE_ROOT = fileURLToPath(new URL('../../src/emulator/fixtures/terraform/', import.meta.url));

/** Index just past the `}` matching the `{` at `open`, skipping strings and comments. */
function matchBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (ch === '#' || (ch === '/' && text[i + 1] === '/')) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

export function parseVariables(text: string, source: string): TerraformVariableDefinition[] {
  const out: TerraformVariableDefinition[] = [];
  const re = /^\s*variable\s+"([^"]+)"\s*\{/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const open = m.index + m[0].length - 1;
    const end = matchBrace(text, open);
    const body = text.slice(open + 1, end - 1);
    const attrs = topLevelAttributes(body);
    const str = (v: string | undefined) => (v === undefined ? null : /^".*"$/s.test(v) ? JSON.parse(v) : v);
    out.push({
      key: m[1],
      sensitive: attrs.sensitive === 'true',
      nullable: attrs.nullable !== 'false',
      default: str(attrs.default),
      description: str(attrs.description),
      source,
    });
    re.lastIndex = end;
  }
  return out;
}

function topLevelAttributes(body: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  let i = 0;
  while (i < body.length) {
    const rest = body.slice(i);
    const a = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*/.exec(rest);
    const blk = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\{/.exec(rest);
    if (blk) {
      i = matchBrace(body, i + blk[0].length - 1);
      continue;
    }
    if (a) {
      const start = i + a[0].length;
      let j = start;
      if (body[j] === '{' || body[j] === '[') {
        j = body[j] === '{' ? matchBrace(body, j) : body.indexOf(']', j) + 1;
      } else if (body[j] === '"') {
        for (j++; j < body.length && body[j] !== '"'; j++) if (body[j] === '\\') j++;
        j++;
      } else {
        while (j < body.length && body[j] !== '\n') j++;
      }
      attrs[a[1]] = body.slice(start, j).trim();
      i = j;
      continue;
    }
    const nl = body.indexOf('\n', i);
    i = nl < 0 ? body.length : nl + 1;
  }
  return attrs;
}

/** `https://github.com/acme/infra.git` -> `acme/infra`. */
export function repoKey(url: string): string | undefined {
  const m = /^(?:[a-z+]+:\/\/[^/]+\/|git@[^:]+:)([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(url.trim());
  return m ? `${m[1]}/${m[2]}` : undefined;
}

export function availableFixtures(root = FIXTURE_ROOT): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((owner) => readdirSync(join(root, owner)).map((repo) => `${owner}/${repo}`));
}

export type ParseResult = { ok: true; results: TerraformVariableDefinition[] } | { ok: false; field: string; problem: string };

export function parseRepository(url: string, rootPath: string | null | undefined, root = FIXTURE_ROOT): ParseResult {
  const key = repoKey(url);
  const known = availableFixtures(root);
  if (!key || !known.includes(key)) {
    return { ok: false, field: 'git_repository.url', problem: `the emulator cannot reach git and has no fixture for '${url}'; fixture repositories: ${known.map((k) => `https://github.com/${k}`).join(', ')}` };
  }
  const rel = normalize(`/${rootPath ?? '/'}`).replace(/^\/+/, '');
  if (rel.split('/').includes('..')) return { ok: false, field: 'git_repository.root_path', problem: 'must stay inside the repository' };
  const dir = join(root, key, rel);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    return { ok: false, field: 'git_repository.root_path', problem: `no directory '${rootPath}' in ${key}` };
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.tf')).sort();
  return { ok: true, results: files.flatMap((f) => parseVariables(readFileSync(join(dir, f), 'utf8'), f)) };
}
