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
  name: string;
  organization_id: string;
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
}
