/**
 * The diagnostic codes of the manifest stage, as a closed union: a typo in a code is a compile
 * error, and this list is the reference of what `driftless validate` can report.
 *
 *   yaml.*      the file is not readable YAML (or is hostile: too deep, alias bomb)
 *   manifest.*  files and structure: missing, empty, too large, binary, duplicates, field combinations
 *   schema.*    a value does not match schemas/manifest.schema.json
 *   ref.*       a name, `${env:}` or `${file:}` reference that resolves to nothing
 *   secret.*    secret hygiene (a secret written in clear)
 *   limit.*     a value above what the organization allows (cluster maxima; needs the API)
 */
import { error as diagError, warning as diagWarning, type Diagnostic } from '../diag/diagnostic.js';

export type ManifestCode =
  // YAML syntax errors keep the parser's own code: yaml.duplicate-key, yaml.missing-char, ...
  | `yaml.${string}`
  | 'manifest.not-found'
  | 'manifest.not-a-file'
  | 'manifest.outside-directory'
  | 'manifest.not-a-manifest'
  | 'manifest.unreadable'
  | 'manifest.empty-directory'
  | 'manifest.empty'
  | 'manifest.empty-file'
  | 'manifest.too-large'
  | 'manifest.binary'
  | 'manifest.encoding'
  | 'manifest.duplicate'
  | 'manifest.conflict'
  | 'manifest.exclusive'
  | 'manifest.only-with'
  | 'manifest.override-scope'
  | 'manifest.range'
  | 'manifest.prune-level'
  | 'manifest.scope-prune'
  | 'manifest.confusable'
  | 'manifest.ignore-path'
  | 'manifest.unused-template'
  | 'schema.unknown-key'
  | 'schema.missing-key'
  | 'schema.wrong-type'
  | 'schema.not-allowed'
  | 'schema.bad-format'
  | 'schema.too-short'
  | 'schema.too-long'
  | 'schema.too-few'
  | 'schema.duplicate-item'
  | 'schema.out-of-range'
  | 'schema.invalid'
  | 'schema.bad-cron'
  | 'schema.bad-timezone'
  | 'schema.bad-number'
  | 'ref.unresolved'
  | 'limit.cluster-maximum'
  | 'ref.self'
  | 'ref.alias-of-alias'
  | 'ref.alias-cycle'
  | 'ref.builtin-alias-scope'
  | 'ref.override-mount-path'
  | 'ref.env-missing'
  | 'ref.env-empty'
  | 'ref.bad-env-name'
  | 'ref.file-unreadable'
  | 'ref.bad-file-path'
  | 'ref.unknown-scheme'
  | 'ref.unterminated'
  | 'secret.in-clear';

export function error(code: ManifestCode, summary: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return diagError(code, summary, extra);
}

export function warning(code: ManifestCode, summary: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return diagWarning(code, summary, extra);
}
