// Types of reference-subset.mjs for the tests (the script runs as it is, with no build step).
export interface Selection {
  operations: string[];
  schemas: string[];
}
export function shapeOnly<T>(node: T, isNameMap?: boolean): T;
export function extractSubset(doc: any, selection: Selection): any;
