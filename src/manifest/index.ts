/**
 * The manifest stage of the pipeline: YAML files -> a validated, resolved Manifest, or diagnostics.
 *
 *   loadManifest(paths, {env, cwd, references?})   files on disk (the CLI's entry point)
 *   loadManifestFromSources(sources, {env, readFile}) the same from texts in memory (tests, fuzzers)
 *   checkReferences(manifest, {clusters, registries}) re-run name checks with lists from the API
 *   sourceOf(obj, field?) / locate(root, path)       where a value was written, for diagnostics
 */
export {
  loadManifest,
  loadManifestSync,
  loadManifestFromSources,
  readReferencedFile,
  DEFAULT_LOAD_LIMITS,
  type LoadOptions,
  type LoadResult,
  type LoadLimits,
  type ManifestSource,
  type SourceLoadOptions,
} from './load.js';
export type { ManifestFile } from './discover.js';
export { checkReferences, type ReferenceContext } from './references.js';
export { fetchReferenceNames } from './remote-names.js';
export { validateManifestSchema, manifestSchemaPath, manifestSchema } from './schema-validate.js';
export { locate, keySourceOf, fieldSourceOf, KEY_SOURCES } from './source-map.js';
export type { ManifestCode } from './codes.js';
export * from './types.js';
