/**
 * The API's record as the live read returns it, in a module of its own: the request builders
 * (src/apply) and the kind descriptors name it without importing the reader, which imports the
 * kind registry (no import cycle).
 */
export type ApiRecord = Record<string, unknown> & { id: string };
