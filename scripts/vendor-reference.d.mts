// Types of vendor-reference.mjs (the script runs as it is, with no build step).
import type { Selection } from './reference-subset.mjs';
export type { Selection };
export const SELECTION_FILE: string;
export const SUBSET_FILE: string;
export { shapeOnly, extractSubset } from './reference-subset.mjs';
export function vendor(referencePath: string, selection: Selection): string;
