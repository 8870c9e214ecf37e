/**
 * Schema fragments shared by route declarations: path parameters (UUIDs, so a malformed id is a
 * 400 naming the parameter), the error responses every operation may give, and list queries.
 */
import { schema } from '../schemas.js';

export function uuidParams(...names: string[]) {
  return {
    type: 'object',
    required: names,
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string', format: 'uuid' }])),
  };
}

/** Error responses documented on every operation (seed 7). */
export function errorResponses(...extra: number[]) {
  const err = schema('Error');
  const out: Record<number, unknown> = { 400: err, 401: err, 403: err, 404: err, 429: err };
  for (const code of extra) out[code] = err;
  return out;
}

export const listQuery = () => schema('ListQuery');

/** An operation's tags and summary for the OpenAPI document. */
export function doc(tag: string, summary: string) {
  return { tags: [tag], summary };
}
