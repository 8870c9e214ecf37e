/**
 * Merging the files of a manifest directory into one Manifest.
 *
 * Each file is a partial manifest: its top-level lists are concatenated in file order (files are
 * sorted by path, so the result is deterministic); `organization`, `prune` and `scope` may be
 * written in one file only. Whether a resource ended up declared twice is checked afterwards (duplicates.ts) over
 * the merged result, so that it does not matter whether both copies came from one file or two.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from './codes.js';
import { fieldSourceOf, keySourceOf, attachFieldSource, attachSource } from './source-map.js';
import type { Manifest } from './types.js';
import { formatRange } from '../diag/excerpt.js';

const LIST_KEYS = ['clusters', 'annotation_groups', 'label_groups', 'alert_receivers', 'alert_rules', 'webhooks', 'projects', 'moved'] as const;
const SINGLE_KEYS = ['organization', 'prune', 'scope'] as const;

export interface PartialFile {
  file: string;
  /** The file's top-level mapping, already schema-valid. */
  value: Record<string, unknown>;
}

export function mergeManifestFiles(parts: readonly PartialFile[]): { manifest: Manifest; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const merged: Record<string, unknown> = { version: 1 };
  attachSource(merged, { file: parts[0]?.file ?? '', start: { line: 1, col: 1 } });
  for (const { value } of parts) {
    for (const key of LIST_KEYS) {
      const list = value[key];
      if (!Array.isArray(list)) continue;
      const into = (merged[key] ??= []) as unknown[];
      if (into.length === 0 && fieldSourceOf(value, key)) attachSource(into, fieldSourceOf(value, key)!);
      for (let i = 0; i < list.length; i++) {
        attachFieldSource(into, String(into.length), fieldSourceOf(list, String(i)) ?? fieldSourceOf(value, key)!);
        into.push(list[i]);
      }
      if (!fieldSourceOf(merged, key)) attachFieldSource(merged, key, fieldSourceOf(value, key)!, keySourceOf(value, key));
    }
    for (const key of SINGLE_KEYS) {
      if (value[key] === undefined) continue;
      if (merged[key] !== undefined) {
        const first = keySourceOf(merged, key);
        diagnostics.push(
          error('manifest.duplicate', `\`${key}\` is declared in more than one file`, {
            detail: `It was first declared at ${first ? formatRange(first) : 'another file'}; keep one of them.`,
            range: keySourceOf(value, key),
          }),
        );
        continue;
      }
      merged[key] = value[key];
      attachFieldSource(merged, key, fieldSourceOf(value, key)!, keySourceOf(value, key));
    }
  }
  return { manifest: merged as unknown as Manifest, diagnostics };
}
