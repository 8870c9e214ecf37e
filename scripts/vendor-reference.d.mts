// Types of vendor-reference.mjs for the tests (the script runs as it is, with no build step).
export const SELECTION_FILE: string;
export const SUBSET_FILE: string;
export interface Selection {
  operations: string[];
  schemas: string[];
}
export function shapeOnly<T>(node: T, isNameMap?: boolean): T;
export function extractSubset(doc: any, selection: Selection): any;
export function vendor(referencePath: string, selection: Selection): string;
