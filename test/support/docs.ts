/**
 * The project's documentation as the tests read it: the README (the front page) and every page of
 * docs/. Tests that check that something is documented look in all of them, so a table may live on
 * whichever page suits its topic, and check that it is documented exactly once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface DocPage {
  /** Relative to the repository root, with forward slashes: `README.md`, `docs/commands.md`. */
  file: string;
  text: string;
}

export function docPages(): DocPage[] {
  const docs = readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs].map((file) => ({ file, text: readFileSync(path.join(repoRoot, file), 'utf8') }));
}

export function docPage(file: string): string {
  return readFileSync(path.join(repoRoot, file), 'utf8');
}
