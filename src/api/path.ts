/**
 * Path templates (`/environment/{environmentId}/services`) filled with encoded parameters, so that
 * an id can never forge a path, and requests can be counted per endpoint rather than per URL.
 */
export type PathParams = Record<string, string | number>;
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>;
export type Query = Record<string, QueryValue>;

export function fillPath(template: string, params: PathParams = {}): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined || v === '') throw new Error(`path parameter "${name}" of ${template} is missing`);
    return encodeURIComponent(String(v));
  });
}

/** `?a=1&b=x` for the defined entries, '' when none. Arrays repeat the key. */
export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) sp.append(k, String(item));
    else sp.append(k, String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

/** The base URL without a trailing slash; a clear error for anything that is not http(s). */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`invalid API URL "${baseUrl}": expected an absolute http(s) URL such as http://127.0.0.1:8080`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`invalid API URL "${baseUrl}": the protocol must be http or https`);
  }
  if (url.username || url.password) {
    throw new Error('invalid API URL: credentials in the URL are not allowed; use DRIFTLESS_API_TOKEN');
  }
  if (url.search || url.hash) throw new Error(`invalid API URL "${baseUrl}": it must not have a query string or fragment`);
  return url.toString().replace(/\/+$/, '');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The endpoint a request counts under: the template when the caller gave one, else the path with
 * its UUID segments replaced by `{id}` (callers that pass ready-made paths still get per-endpoint
 * counts, e.g. `GET /environment/{id}/services`).
 */
export function endpointTemplate(pathOrTemplate: string): string {
  if (pathOrTemplate.includes('{')) return pathOrTemplate;
  return pathOrTemplate
    .split('/')
    .map((seg) => (UUID.test(seg) ? '{id}' : seg))
    .join('/');
}
