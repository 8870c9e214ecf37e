/** The HTTP client of the API and its typed facade. Import from here. */
export { createApiClient } from './client.js';
export type { ApiClient, ApiClientOptions, ApiEvent, ApiResponse, FetchLike, HttpMethod, RequestOptions } from './client.js';
export { ApiError, isApiError, kindForStatus } from './errors.js';
export type { ApiErrorKind, ApiErrorInit } from './errors.js';
export { authorizationHeader, authScheme, looksLikeJwt, parseAuthScheme } from './auth.js';
export type { AuthScheme } from './auth.js';
export type { RequestStats } from './stats.js';
export type { RateLimitSnapshot } from './rate-limit.js';
export { RateLimitWaitError, isRateLimitWaitError, budgetText } from './rate-limit-cap.js';
export type { CappedWait } from './rate-limit-cap.js';
