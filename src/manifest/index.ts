/** The manifest stage of the pipeline: load, validate, resolve. */
export { loadManifest, loadManifestSync, readReferencedFile, DEFAULT_LOAD_LIMITS, type LoadOptions, type LoadResult, type LoadLimits } from './load.js';
export { checkReferences, type ReferenceContext } from './references.js';
export { validateManifestSchema, manifestSchemaPath, manifestSchema } from './schema-validate.js';
export { locate, keySourceOf, fieldSourceOf, KEY_SOURCES } from './source-map.js';
export * from './types.js';
