/**
 * Webhook delivery (seed section 6): every deployment event (DEPLOYMENT_STARTED,
 * DEPLOYMENT_SUCCEEDED, DEPLOYMENT_FAILED) is POSTed as `{event_type, payload: {application_id, ...}}`
 * to each enabled webhook of the organization subscribed to it (and whose project-name and
 * environment-type filters match).
 *
 * - A 2xx answer acknowledges the delivery. Anything else (other status, refused connection,
 *   timeout) is retried with exponential backoff (base, 2x base, 4x base, ...) up to `maxAttempts`
 *   attempts in all; then the delivery is FAILED.
 * - Deliveries never block the API: the event handler only records the delivery and schedules its
 *   first attempt; requests run in the background with a timeout.
 * - Every delivery is recorded in `state.webhookDeliveries` (listed by
 *   `GET /organization/{id}/webhook/{webhookId}/event`), so pending ones resume after a restart.
 * - The signing secret is read from `state.webhookSecrets` at send time and only ever used as an
 *   HMAC key (signature.ts); it is never recorded, logged or sent.
 */
import picomatch from 'picomatch';
import { request } from 'undici';
import type { DeploymentEvent, EmulatorContext } from '../context.js';
import type { ApiRecord } from '../state.js';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signBody } from './signature.js';

export interface DeliveryConfig {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Delay before the first retry; doubled for each further retry. */
  baseDelayMs: number;
  /** Per-attempt limit for the receiver to answer. */
  timeoutMs: number;
  /** Finished deliveries kept per webhook (the oldest go first). */
  keepPerWebhook?: number;
}

export const DEFAULT_DELIVERY_CONFIG: DeliveryConfig = { maxAttempts: 4, baseDelayMs: 1000, timeoutMs: 5000, keepPerWebhook: 1000 };

export interface SendResult {
  status: number;
  body: string;
}

/** Sends one HTTP POST; injected so that delivery logic can be exercised without sockets. */
export type Sender = (url: string, body: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal) => Promise<SendResult>;

export const MAX_RECORDED_BODY = 1024;

export const httpSender: Sender = async (url, body, headers, timeoutMs, signal) => {
  const res = await request(url, { method: 'POST', body, headers, signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const text = await res.body.text();
  return { status: res.statusCode, body: text.slice(0, MAX_RECORDED_BODY) };
};

export function backoffMs(config: DeliveryConfig, attemptsMade: number): number {
  return config.baseDelayMs * 2 ** Math.max(0, attemptsMade - 1);
}

/** Does this webhook want this event? */
export function subscribed(webhook: ApiRecord, event: DeploymentEvent, projectName: string | undefined, environmentMode: string | undefined): boolean {
  if (webhook.enabled === false) return false;
  if (!Array.isArray(webhook.events) || !webhook.events.includes(event.event_type)) return false;
  const names = (webhook.project_names_filter ?? []) as string[];
  if (names.length && !names.some((glob) => picomatch.isMatch(projectName ?? '', glob, { nocase: true }))) return false;
  const types = (webhook.environment_types_filter ?? []) as string[];
  if (types.length && !types.includes(String(environmentMode))) return false;
  return true;
}

/** The JSON body of a delivery: seed 6's shape for STANDARD webhooks, a text message for SLACK ones. */
export function deliveryBody(webhook: ApiRecord, event: DeploymentEvent): Record<string, unknown> {
  const payload = {
    application_id: event.service_id,
    service_id: event.service_id,
    service_type: event.service_type,
    service_name: event.service_name,
    environment_id: event.environment_id,
    project_id: event.project_id,
    organization_id: event.organization_id,
    execution_id: event.execution_id,
    timestamp: event.at,
  };
  if (webhook.kind === 'SLACK') {
    return { text: `${event.event_type}: ${event.service_type.toLowerCase()} ${event.service_name} (execution ${event.execution_id})`, event_type: event.event_type, payload };
  }
  return { event_type: event.event_type, payload };
}

export class WebhookDispatcher {
  config: DeliveryConfig = { ...DEFAULT_DELIVERY_CONFIG };
  readonly #ctx: EmulatorContext;
  readonly #send: Sender;
  readonly #inflight = new Set<AbortController>();
  #closed = false;

  constructor(ctx: EmulatorContext, send: Sender = httpSender) {
    this.#ctx = ctx;
    this.#send = send;
  }

  /** Records one delivery per subscribed webhook and schedules its first attempt. */
  onDeployment(event: DeploymentEvent): void {
    const s = this.#ctx.state;
    const env = s.environments[event.environment_id];
    const project = event.project_id ? s.projects[event.project_id] : undefined;
    for (const webhook of Object.values(s.webhooks)) {
      if (!subscribed(webhook, event, project?.name, env?.mode)) continue;
      const now = this.#ctx.nowIso();
      const delivery: ApiRecord = {
        id: this.#ctx.newId(),
        created_at: now,
        updated_at: now,
        webhook_id: webhook.id,
        kind: webhook.kind ?? 'STANDARD',
        matched_event: event.event_type,
        target_url_used: webhook.target_url,
        request: deliveryBody(webhook, event),
        target_response_status_code: 0,
        target_response_body: null,
        status: 'PENDING',
        attempts: 0,
        next_attempt_at: now,
      };
      s.webhookDeliveries[delivery.id] = delivery;
      this.#schedule(delivery.id, 0);
    }
  }

  /** Keeps the delivery log bounded: the newest `keepPerWebhook` finished deliveries of each webhook. */
  #prune(webhookId: string): void {
    const s = this.#ctx.state;
    const mine = Object.values(s.webhookDeliveries).filter((d) => d.webhook_id === webhookId && d.status !== 'PENDING');
    const excess = mine.length - (this.config.keepPerWebhook ?? DEFAULT_DELIVERY_CONFIG.keepPerWebhook!);
    for (let i = 0; i < excess; i++) delete s.webhookDeliveries[mine[i].id];
  }

  /** After a restart: pending deliveries carry on where they were. */
  resume(): void {
    const now = this.#ctx.clock.now().getTime();
    for (const d of Object.values(this.#ctx.state.webhookDeliveries)) {
      if (d.status === 'PENDING') this.#schedule(d.id, Math.max(0, Date.parse(d.next_attempt_at) - now));
    }
  }

  close(): void {
    this.#closed = true;
    for (const c of this.#inflight) c.abort();
    this.#inflight.clear();
  }

  #schedule(id: string, delayMs: number): void {
    this.#ctx.later(delayMs, () => {
      void this.#attempt(id);
    });
  }

  async #attempt(id: string): Promise<void> {
    const ctx = this.#ctx;
    const d = ctx.state.webhookDeliveries[id];
    if (!d || d.status !== 'PENDING' || this.#closed) return;
    const webhook = ctx.state.webhooks[d.webhook_id];
    if (!webhook) {
      this.#finish(d, { status: 'FAILED', target_response_status_code: 0, target_response_body: 'webhook deleted before delivery' });
      return;
    }
    const body = JSON.stringify(d.request);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'driftless-emulator-webhooks/1',
      [EVENT_HEADER]: String(d.matched_event),
      [DELIVERY_HEADER]: d.id,
    };
    const secret = ctx.state.webhookSecrets[webhook.id];
    if (secret) headers[SIGNATURE_HEADER] = signBody(secret, body);
    const controller = new AbortController();
    this.#inflight.add(controller);
    let result: SendResult | undefined;
    let failure: string | undefined;
    try {
      result = await this.#send(String(d.target_url_used), body, headers, this.config.timeoutMs, controller.signal);
    } catch (err) {
      failure = describeFailure(err);
    } finally {
      this.#inflight.delete(controller);
    }
    if (this.#closed) return;
    const current = ctx.state.webhookDeliveries[id];
    if (!current) return;
    const attempts = Number(current.attempts ?? 0) + 1;
    const ok = result !== undefined && result.status >= 200 && result.status < 300;
    const fields = {
      attempts,
      target_response_status_code: result?.status ?? 0,
      target_response_body: result ? result.body : failure ?? null,
    };
    if (ok) {
      this.#finish(current, { ...fields, status: 'DELIVERED' });
    } else if (attempts >= this.config.maxAttempts) {
      this.#finish(current, { ...fields, status: 'FAILED' });
      ctx.logger.warn(`webhook ${current.webhook_id}: delivery ${id} failed after ${attempts} attempts`);
    } else {
      const delay = backoffMs(this.config, attempts);
      ctx.state.webhookDeliveries[id] = { ...current, ...fields, updated_at: ctx.nowIso(), next_attempt_at: new Date(ctx.clock.now().getTime() + delay).toISOString() };
      ctx.commit();
      this.#schedule(id, delay);
    }
  }

  #finish(d: ApiRecord, fields: Record<string, unknown>): void {
    this.#ctx.state.webhookDeliveries[d.id] = { ...d, ...fields, updated_at: this.#ctx.nowIso(), next_attempt_at: null };
    this.#prune(String(d.webhook_id));
    this.#ctx.commit();
  }
}

/** A failure in words, without the URL (it may carry a token, like Slack webhook URLs do). */
function describeFailure(err: unknown): string {
  const e = err as { code?: string; name?: string };
  if (e?.name === 'AbortError') return 'aborted';
  if (e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT') return 'timeout: the receiver did not answer in time';
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  return `request failed (${e?.code ?? e?.name ?? 'error'})`;
}

const dispatchers = new WeakMap<EmulatorContext, WebhookDispatcher>();

/** The dispatcher of a running emulator (tests use it to shorten the backoff). */
export function webhookDispatcher(ctx: EmulatorContext): WebhookDispatcher {
  let d = dispatchers.get(ctx);
  if (!d) dispatchers.set(ctx, (d = new WebhookDispatcher(ctx)));
  return d;
}
