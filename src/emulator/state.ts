/**
 * The emulator's whole state: one JSON-serialisable document, so that persistence (`--data FILE`)
 * is a matter of writing it (or a journal of changes to it) and a seed fixture (`--seed FILE`) is a
 * matter of reading it.
 *
 * Records are stored exactly as the API returns them (minus secret values, which live only in
 * `secretValues`), keyed by id. Route modules read and write these collections; nothing else holds
 * state, except in-flight timers of asynchronous operations, which are rebuilt from `operations`
 * on start-up.
 */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type ApiRecord = { id: string; created_at: string; updated_at?: string | null } & { [k: string]: any };

/** Cluster upgrade status (seed 2.13): keyed by cluster_id, it has no id of its own. */
export type ClusterStatusRecord = { cluster_id: string } & { [k: string]: any };

export type TokenScope = 'ADMIN' | 'WRITE' | 'DEPLOY' | 'READ';

export interface TokenRecord {
  token: string;
  scope: TokenScope;
  /** Who the token is in the audit log (`triggered_by`): a token name, or a console user's e-mail. */
  name: string;
  organization_id: string;
  /** Where its writes come from in the audit log: API (default) or CONSOLE (a console user's JWT). */
  origin?: 'API' | 'CONSOLE';
}

/** One entry of the organization's audit log, as `GET /organization/{id}/events` serves it. */
export interface AuditEvent {
  id: string;
  /** RFC 3339 with 9 fractional digits; strictly increasing within the emulator. */
  timestamp: string;
  event_type: string;
  target_id: string | null;
  target_name?: string;
  target_type: string;
  /** Absent when the target itself changed (the reference's enumeration has no null). */
  sub_target_type?: string;
  /** JSON text of what changed (never a secret value). */
  change: string;
  origin: string;
  triggered_by: string;
  project_id: string | null;
  project_name?: string;
  environment_id: string | null;
  environment_name?: string;
  user_agent: string | null;
  original_change: string | null;
}

export interface EmulatorState {
  /** Schema version of this document, for forward compatibility of --data files. */
  version: 1;
  organization: ApiRecord;
  tokens: TokenRecord[];
  clusters: Record<string, ApiRecord>;
  /** cluster id -> cluster status record (2.13) */
  clusterStatuses: Record<string, ClusterStatusRecord>;
  containerRegistries: Record<string, ApiRecord>;
  /** Organization helm repositories (HelmRepositoryResponse without `associated_services_count`). */
  helmRepositories: Record<string, ApiRecord>;
  projects: Record<string, ApiRecord>;
  environments: Record<string, ApiRecord>;
  /** All services of every kind, discriminated by `service_type`. */
  services: Record<string, ApiRecord>;
  /** service id -> status record (2.9), kept separately because the API serves it separately. */
  serviceStatuses: Record<string, ApiRecord>;
  /** service id -> advanced settings (flat key -> value) */
  advancedSettings: Record<string, Record<string, Json>>;
  deploymentStages: Record<string, ApiRecord>;
  /** Variables and secrets of every scope (unified /variable records, including is_secret). */
  variables: Record<string, ApiRecord>;
  /**
   * variable id -> clear secret value; also `tfvar:<service id>:<key>` (secret terraform variables)
   * and `helmrepo:<repository id>:<config field>` (helm repository credentials). Never serialised
   * into any response.
   */
  secretValues: Record<string, string>;
  annotationsGroups: Record<string, ApiRecord>;
  labelsGroups: Record<string, ApiRecord>;
  alertReceivers: Record<string, ApiRecord>;
  /** receiver id -> write-only fields (webhook_url, auth_password). */
  alertReceiverSecrets: Record<string, Record<string, string>>;
  alertRules: Record<string, ApiRecord>;
  webhooks: Record<string, ApiRecord>;
  /** webhook id -> signing secret (write-only). */
  webhookSecrets: Record<string, string>;
  webhookDeliveries: Record<string, ApiRecord>;
  /** Environment deployment history entries (2.10), newest last. */
  environmentHistory: Record<string, ApiRecord[]>;
  /** Service (and database) deployment history entries, newest last. */
  serviceHistory: Record<string, ApiRecord[]>;
  backups: Record<string, ApiRecord>;
  /** Test messages recorded by alert receiver validation. */
  receiverValidations: ApiRecord[];
  /** Log lines per service id. */
  logs: Record<string, Array<{ id: string; created_at: string; message: string; pod_name?: string; version?: string }>>;
  /**
   * Asynchronous operations in progress (deploy, stop, restart, delete, cluster upgrade), with the
   * state sequence still to go, so that a restart resumes them.
   */
  operations: Record<string, ApiRecord>;
  /** The organization's audit log, keyed by event id, oldest first (see audit/log.ts). */
  auditEvents: Record<string, AuditEvent>;
  /**
   * Timestamp of the newest event ever dropped (older than the retention, or beyond the cap): a
   * query reaching back to it or before is told `organization_max_limit_reached`.
   */
  auditDroppedThrough: string | null;
}
