/**
 * Counts the HTTP requests actually sent (retries included): the figure the rate limit charges and
 * the one plans report ("this plan made 42 requests").
 */
export interface RequestStats {
  /** HTTP requests sent, retries included. */
  total: number;
  byMethod: Record<string, number>;
  /** Keyed by `METHOD /path/{template}`, e.g. `GET /environment/{environmentId}/services`. */
  byEndpoint: Record<string, number>;
  /** How many of `total` were retries. */
  retries: number;
  /** 429 responses received. */
  rateLimited: number;
  /** Total time spent waiting for the rate limit, in ms. */
  rateLimitWaitMs: number;
}

export class RequestCounter {
  private s: RequestStats = emptyStats();

  recordSend(method: string, template: string, isRetry: boolean): void {
    this.s.total++;
    this.s.byMethod[method] = (this.s.byMethod[method] ?? 0) + 1;
    const key = `${method} ${template}`;
    this.s.byEndpoint[key] = (this.s.byEndpoint[key] ?? 0) + 1;
    if (isRetry) this.s.retries++;
  }

  recordRateLimited(): void {
    this.s.rateLimited++;
  }

  recordWait(ms: number): void {
    this.s.rateLimitWaitMs += ms;
  }

  snapshot(): RequestStats {
    return { ...this.s, byMethod: { ...this.s.byMethod }, byEndpoint: { ...this.s.byEndpoint } };
  }

  reset(): void {
    this.s = emptyStats();
  }
}

function emptyStats(): RequestStats {
  return { total: 0, byMethod: {}, byEndpoint: {}, retries: 0, rateLimited: 0, rateLimitWaitMs: 0 };
}
