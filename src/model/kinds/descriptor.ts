/**
 * What every stage of the pipeline needs to know of one resource kind, in one place (issue 22):
 * one module per kind in this folder, collected by ./index.ts. The stages derive their per-kind
 * tables from the descriptors instead of keeping copies of them.
 *
 * A descriptor module holds data and functions only: nothing in it runs when it is imported (the
 * registry is read lazily). It imports its stages' helpers and types from modules that do not
 * import the registry (body-helpers, record-helpers, manifest-helpers, service-helpers...), since
 * the stage modules do: no import cycle, type-only ones included (test/repo/import-cycles.test.ts).
 */
import type { IgnoreTable } from '../ignore-table.js';
import type { OrgListName } from '../../api/routes.js';
import type { Address, LiveResource } from '../resource.js';
import type { ResourceKind, ServiceKind } from './names.js';
import type {
  AlertReceiverSpec,
  AlertRuleSpec,
  AnnotationGroupSpec,
  ClusterSpec,
  DeploymentStageSpec,
  EnvironmentSpec,
  LabelGroupSpec,
  OrganizationSpec,
  ProjectSpec,
  ServiceSpec,
  VariableSpec,
  WebhookSpec,
} from '../../manifest/types.js';
import type { GraphBuilder } from '../../graph/builder.js';
import type { ServiceBuild } from '../../graph/service-helpers.js';
import type { ApiRecord, LiveLookup, NormalizeExtra, RecordAttrs } from '../../live/record-helpers.js';
import type { BodyContext } from '../../apply/body-helpers.js';
import type { Doc, ExportContext } from '../../export/manifest-helpers.js';

import type { Diagnostic, SourceRange } from '../../diag/diagnostic.js';

type Obj = Record<string, unknown>;

/** What a service created as a copy names (`clone_from`): where it is written, the source's name, project and environment. */
export interface CloneSource {
  /** The object holding the names (its `project` and `environment` keys, and `field`). */
  holder: object;
  /** The key of `holder` naming the source service. */
  field: string;
  name: string;
  /** Absent: the service's own. */
  project?: string;
  environment?: string;
}

/** One BUILT_IN variable of a service (src/model/builtins.ts). */
export interface BuiltInName {
  /** The part of the key after the service's hash. */
  suffix: string;
  /** The platform keeps it as a secret (an alias of it is a secret too). */
  secret: boolean;
}

/** How the audit log names an object of this kind (src/drift/changed-by.ts, src/live/touched.ts). */
export type AuditTarget =
  /** Its own `target_type` (a project, a service, a webhook...). */
  | { type: string }
  /** A `sub_target_type` of its parent (or of the organization): variables, stages, groups... */
  | { subTypes: readonly string[] };

export interface KindDescriptor<K extends ResourceKind = ResourceKind> {
  readonly kind: K;
  /**
   * API record -> attrs (src/live/normalize.ts): ids of the objects it names become names through
   * `lookup`, set-like lists sorted, a fingerprint marker split off the description. A service
   * kind's is serviceFromRecord (src/live/record-helpers.ts): the fields every service has, then
   * its own, by its `service.fromRecord`.
   */
  fromRecord(r: ApiRecord, lookup: LiveLookup, extra: NormalizeExtra): RecordAttrs;
  /** The name of its object in the address (src/live/normalize.ts); absent: the record's `name`. */
  recordName?(r: ApiRecord): string;
  /** There is one object of the kind (the token's organization): its address is the kind alone. */
  readonly singleton?: true;
  /**
   * Its objects exist in the organization and cannot be created or deleted through the API (the
   * organization, clusters, registries, helm repositories): a manifest names them (and may edit
   * some of their fields); a plan refuses one that is absent, never prunes nor deletes one.
   */
  readonly readOnly?: true;
  /**
   * The organization-level list its objects are in (src/api/routes.ts ORG_LISTS), for a kind that
   * lives in the organization itself; absent: its objects live under a parent, or it is the
   * organization.
   */
  readonly orgList?: OrgListName;
  /*
   * Attrs -> request body (src/apply/bodies.ts), after the mapping every kind shares. A service
   * kind has these in its `service` mappings (ServiceMappings), beside its other mappings.
   */
  /** Attrs -> request body: names resolved to ids, attrs the API does not take left out, in place. */
  toRequest?(a: Obj, ctx: BodyContext): void;
  /** A live record's fields -> request shape (a full-replacement PUT keeps what is not owned), in place. */
  recordToRequest?(out: Obj, record: ApiRecord): void;
  /** Last touches of a create body (defaults and desired attrs laid over each other), in place. */
  finishCreate?(body: Obj): void;
  /**
   * The API's upper-case name of the kind: a service's `service_type`, the `scope` of the variables
   * it holds, its audit `target_type` or `sub_target_type` (the API spells them the same, so they
   * are derived from it: auditTargetOf, variableScopeOf in ./index.ts). Absent: the API has none.
   */
  readonly apiType?: string;
  /**
   * How the audit log names its objects when not by their own `target_type` (apiType, the default):
   * `'subTarget'`, as a `sub_target_type` (apiType) of their parent or of the organization (stages,
   * groups, alert receivers and rules); or these sub target types (a variable: VARIABLE or SECRET).
   */
  readonly auditedAs?: 'subTarget' | { readonly subTypes: readonly string[] };
  /**
   * It holds variables, of the API's variable `scope` apiType (absent: it holds none). A service
   * that holds none also sees none: neither its environment's nor its project's variables reach
   * it, so a variable written or changed does not make it out of date (a database: api-notes 4).
   */
  readonly holdsVariables?: true;
  /**
   * Deleting or replacing one of its objects destroys data that no other object holds: the plan
   * guards it with `--allow-data-loss` (also when it goes with a deleted parent), apply takes a
   * backup first, and an export writes it with `protect: true`.
   */
  readonly holdsData?: true;
  /**
   * Names compared case-insensitively (seed 2.4, 2.7, 2.8): `DB` and `db` are the same object, so
   * live and desired are paired on matchKey and a look-up by name after a lost answer folds case.
   */
  readonly caseInsensitiveName: boolean;
  /** The kind of the resource it lives under (absent: the organization; a variable: any that holds variables). */
  readonly parent?: ResourceKind;
  /**
   * Organization-level kinds its objects name (a container its registry, a helm service its chart
   * repository, an environment its cluster): their lists are read whenever this kind is declared.
   */
  readonly refersTo?: readonly ResourceKind[];
  /**
   * Other objects name its objects (a service its groups, an environment its cluster, a rule its
   * receiver): apply resolves those names through its live objects, so the plan records their ids
   * even when they are untouched, and a targeted plan keeps them.
   */
  readonly namedByOthers?: true;
  /** Attrs whose change cannot be done in place (the plan shows a replace). */
  readonly immutableFields?: readonly string[];
  /** Fields the API's create/update request accepts (a live record is reduced to them for a PUT). */
  readonly requestFields?: readonly string[];
  /** Request fields the API requires that a manifest may leave out, sent by a create without them. */
  readonly createDefaults?: Readonly<Record<string, unknown>>;
  /**
   * The defaults the manifest schema documents for this kind's top-level fields (manifest names),
   * the ones a create without the field sends and an export leaves out (test/model/kind-defaults.test.ts).
   */
  readonly manifestDefaults?: Readonly<Record<string, unknown>>;
  /**
   * An export writes this kind's settings even at their default: a manifest owns only what it
   * declares, so a service's cpu left out at 500 would not be drift when someone changes it.
   */
  readonly exportWritesDefaults?: true;
  /** `ignore_changes` paths of the manifest -> the attrs (and deploy pins) they set. */
  readonly ignorePaths?: IgnoreTable;
  /**
   * Manifest -> desired attrs (src/graph/build.ts, variables.ts) of a kind that is not a service (a
   * service kind's is `service.fromManifest`): the attrs and those of them holding secrets. The
   * graph keeps the walk: which object is under which, addresses, dependencies, and the
   * diagnostics (references, description room). Absent: a manifest does not declare the kind
   * (container registries and helm repositories are only read live).
   */
  attrsFromManifest?(spec: ManifestSpecOf<K>, at: DeclaredAt): DeclaredAttrs;
  /**
   * Attrs -> its manifest object (src/export/to-manifest.ts) of a kind that is not a service (a
   * service kind's is `service.toManifest`): its own keys, with no undefined member. The export
   * assembles the rest: where the object goes, its order among its siblings, `protect`, and the
   * objects under it (an environment's stages, services and variables). `path`: its name after
   * those of the objects it is under (project, environment, service), which names its secrets'
   * placeholders. Undefined: a manifest cannot declare this object (a warning in ctx says why).
   * Absent: an export does not write the kind (a cluster is named, never declared, by a manifest).
   */
  toManifestDoc?(r: LiveResource, ctx: ExportContext, path: readonly string[]): Doc | undefined;
}

/** The manifest object a kind that is not a service is declared as (its attrsFromManifest reads it). */
export interface ManifestSpecs {
  organization: OrganizationSpec;
  cluster: ClusterSpec;
  annotations_group: AnnotationGroupSpec;
  labels_group: LabelGroupSpec;
  alert_receiver: AlertReceiverSpec;
  alert_rule: AlertRuleSpec;
  webhook: WebhookSpec;
  project: ProjectSpec;
  environment: EnvironmentSpec;
  deployment_stage: DeploymentStageSpec;
  variable: VariableSpec;
}

/** The manifest object of kind K (never: a manifest does not declare it, or it is a service: ServiceSpec). */
export type ManifestSpecOf<K extends ResourceKind> = K extends keyof ManifestSpecs ? ManifestSpecs[K] : never;

/** Where the graph's walk met the object, for what its attrs say of its siblings. */
export interface DeclaredAt {
  /** The name of the object declared just before it in the same list (a deployment stage runs after it). */
  previous?: string;
}

/** What a kind's attrsFromManifest builds. */
export interface DeclaredAttrs {
  attrs: Record<string, unknown>;
  /**
   * The attrs holding a secret (SecretValue), compared through fingerprints: the resource's
   * `sensitiveFields`, as the kind has always set them (absent, empty or listed).
   */
  sensitiveFields?: string[];
}

/**
 * The four mappings of a service kind, for its own fields (the fields every service has, name,
 * description, icon, groups, are mapped once, by the stage): each stage calls its kind's.
 */
export interface ServiceMappings<K extends ServiceKind = ServiceKind> {
  /**
   * Organization objects a manifest service names, checked offline against the live lists
   * (src/manifest/references.ts): the holder object, its field and the name written there.
   */
  named?(s: Extract<ServiceSpec, { type: K }>): Array<{ kind: 'container_registry' | 'helm_repository'; holder: object; field: string; name: unknown }>;
  /** Its settings bounded by the cluster's maximum cpu and memory (src/manifest/references.ts). */
  limited?(s: Extract<ServiceSpec, { type: K }>): Array<{ holder: object | undefined; field: string; label: string; value: unknown; resource: 'cpu' | 'memory' }>;
  /** Its secret values besides variables (src/manifest/resolve.ts): the map holding them, their names, the ignore_changes path. */
  secretMaps?(s: Extract<ServiceSpec, { type: K }>): Array<{ holder: Record<string, unknown>; fields: readonly string[]; ignorePath: string }>;
  /** Its tf_vars are checked against the variables the API parses from its repository (src/checks). */
  parsesTerraformVariables?: true;
  /**
   * A managed one's `instance_type` is checked against its cloud provider's managed instance-type
   * listing (src/checks/instance-types.ts): the service is a DatabaseSpec-shaped one (mode, instance_type, database_type).
   */
  instanceTypeListed?: true;
  /**
   * The platform's BUILT_IN variables of a service of this kind, by suffix (src/model/builtins.ts);
   * absent: the ones every service has.
   */
  builtIns?: readonly BuiltInName[];
  /**
   * The object it is created as a copy of (`clone_from`), checked offline in the manifest
   * (src/manifest/references.ts): the holder object, the field naming the source (of the same
   * kind), and the project and environment it is in (absent: the service's own).
   */
  cloneSource?(s: Extract<ServiceSpec, { type: K }>): CloneSource | undefined;
  /** Checks of its shape the schema cannot express (src/manifest/shape-checks.ts), offline. */
  checkShape?(s: Extract<ServiceSpec, { type: K }>, c: ShapeCheck): void;
  /** Manifest -> desired attrs (src/graph/services.ts): sets out.attrs, deploy pins, dependencies. */
  fromManifest(s: Extract<ServiceSpec, { type: K }>, out: ServiceBuild, env: Address, b: GraphBuilder): void;
  /**
   * API record -> attrs of its own fields (src/live/normalize.ts, through the descriptor's
   * fromRecord: serviceFromRecord), in place; answers what the service last deployed.
   */
  fromRecord(r: ApiRecord, a: Obj, lookup: LiveLookup): LiveResource['deployed'];
  /** Attrs -> request body (src/apply/bodies.ts): names resolved to ids, in place. */
  toRequest?(a: Obj, ctx: BodyContext): void;
  /** A live record's fields -> request shape (a full-replacement PUT keeps what is not owned), in place. */
  recordToRequest?(out: Obj, record: ApiRecord): void;
  /** Last touches of an update body: the overlay of desired on base (the live record in request shape). */
  finishUpdate?(body: Obj, base: Obj, desired: Obj): void;
  /** Attrs -> the manifest's keys of the kind (src/export/to-manifest.ts). */
  toManifest(a: Obj, s: LiveResource, ctx: ExportContext, path: string[]): Obj;
  /** Fields a console user sets that a manifest has no key for, when they hold more than the API's default. */
  unmanagedFields?(record: Obj): string[];
  /**
   * Its item of the environment's deploy request (`POST /environment/{id}/service/deploy`): the
   * list it goes in and the item. And its own `POST /{kind}/{id}/deploy`: the body fields it takes,
   * and whether it takes `forceEvent`.
   */
  /** Its list of ids in the environment's batch delete (`POST /environment/{id}/service/delete`, seed 4.2). */
  deleteIds: string;
  deploy: {
    list: string;
    item(s: { id: string; git_commit_id?: string; image_tag?: string; chart_version?: string }): unknown;
    bodyFields: readonly string[];
    forceEvent?: true;
    /** The body repeats the service's id (terraform). */
    idInBody?: true;
  };
}

/** What a kind's shape check is given: its words and the checks' helpers (src/manifest/shape-checks.ts). */
export interface ShapeCheck {
  /** `helm \`name\``: how a message names the service. */
  what: string;
  address: string;
  report(d: Diagnostic): void;
  /** Where a key (or the object) is written. */
  at(o: object, key?: string): SourceRange | undefined;
  present(o: object, key: string): boolean;
  exactlyOne(o: object, keys: string[], what: string, address?: string): void;
  onlyWith(o: object, key: string, requires: string, what: string, address?: string): void;
}

/** A service kind's descriptor: the common part and its mappings. */
export interface ServiceKindDescriptor<K extends ServiceKind = ServiceKind> extends KindDescriptor<K> {
  readonly service: ServiceMappings<K>;
  /** A service kind's request mappings are in `service` (src/apply/bodies.ts reads them there): none here. */
  toRequest?: never;
  recordToRequest?: never;
  finishCreate?: never;
}
