/** The `helm` kind (src/model/kinds/descriptor.ts). */
import { git, pinOnly, renamed, same, serviceCommon } from '../ignore-table.js';
import type { ServiceKindDescriptor } from './descriptor.js';
import type { HelmSpec } from '../../manifest/types.js';
import type { LiveResource } from '../resource.js';
import { git as gitAttrs, type ServiceBuild } from '../../graph/service-helpers.js';
import { compact, keyValuePairs, num, put } from '../../graph/attrs.js';
import { args, deployedCommit, gitRepo, helmSource, helmSourceParts, pairs, serviceFromRecord, type ApiRecord } from '../../live/record-helpers.js';
import { clean, gitRepository, obj, strs, type ExportContext } from '../../export/manifest-helpers.js';
import { PART_DEFAULTS, withoutKindDefaults } from '../../export/part-defaults.js';
import { gitRequest, isObj, pick } from '../../apply/body-helpers.js';

type Doc = Record<string, unknown>;
type Obj = Doc;

export const helmKind: ServiceKindDescriptor<'helm'> = {
  kind: 'helm',
  fromRecord: (r, lookup) => serviceFromRecord(r, lookup, helmKind.service.fromRecord),
  apiType: 'HELM',
  holdsVariables: true,
  caseInsensitiveName: true,
  refersTo: ['helm_repository'],
  parent: 'environment',
  requestFields: [
    'name', 'description', 'timeout_sec', 'auto_preview', 'auto_deploy', 'arguments', 'allow_cluster_wide_resources',
    'icon_uri', 'source', 'values_override', 'ports', 'annotations_groups', 'labels_groups',
  ],
  createDefaults: { auto_deploy: false, arguments: [], values_override: {} },
  manifestDefaults: { timeout_sec: 600, allow_cluster_wide_resources: false },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...same('source', 'source.helm_repository', 'source.helm_repository.repository', 'source.helm_repository.chart_name', 'source.helm_repository.chart_version'),
    ...git('source.git_repository', 'source.git_repository'),
    ...renamed('source.chart_path', 'source.git_repository.root_path'),
    ...same('values_override', 'values_override.file', 'values_override.set', 'values_override.set_string'),
    ...same('arguments', 'timeout_sec', 'allow_cluster_wide_resources', 'auto_deploy'),
    ...pinOnly('git_commit_id'),
  },
  service: {
    deleteIds: 'helm_ids',
    checkShape(s, c) {
      c.exactlyOne(s.source, ['helm_repository', 'git_repository'], `the source of ${c.what}`, c.address);
      c.onlyWith(s.source, 'chart_path', 'git_repository', `the source of ${c.what}`, c.address);
    },
    named: (s) => ('helm_repository' in s.source && s.source.helm_repository ? [{ kind: 'helm_repository', holder: s.source.helm_repository, field: 'repository', name: s.source.helm_repository.repository }] : []),
    fromManifest: (s, out) => helmFromManifest(s, out),
    fromRecord(r, a, lookup) {
      let deployed: LiveResource['deployed'];
      Object.assign(
        a,
        compact({
          timeout_sec: num(r.timeout_sec),
          auto_deploy: r.auto_deploy ?? undefined,
          arguments: args(r.arguments),
          allow_cluster_wide_resources: r.allow_cluster_wide_resources ?? undefined,
        }),
      );
      const src = helmSource(r.source, lookup);
      if (src.helm_repository) a.source = { helm_repository: src.helm_repository };
      else if (src.git_repository) {
        a.source = { git_repository: gitRepo(src.git_repository) };
        deployed = deployedCommit(src.git_repository);
      }
      const vo = r.values_override;
      if (vo && typeof vo === 'object') {
        const out: Record<string, unknown> = {};
        if (Array.isArray(vo.set)) out.set = pairs(vo.set);
        if (Array.isArray(vo.set_string)) out.set_string = pairs(vo.set_string);
        if (vo.file?.raw?.values) {
          const files = vo.file.raw.values as ApiRecord[];
          // One raw file is one values document whatever the console named it (a label only): it
          // compares with a manifest's `values_override.file`, which driftless sends as values.yaml.
          out.file = { raw: { values: files.map((v) => ({ name: files.length === 1 ? 'values.yaml' : v.name, content: v.content })) } };
        }
        a.values_override = out;
      }
      return deployed;
    },
    toRequest(a, ctx) {
      if (isObj(a.source) && isObj(a.source.git_repository)) a.source = { git_repository: gitRequest(a.source.git_repository) };
      // The manifest names the chart repository; the API wants the id of the organization's helm repository.
      if (isObj(a.source) && isObj(a.source.helm_repository) && typeof a.source.helm_repository.repository === 'string') {
        const h = a.source.helm_repository;
        a.source = { helm_repository: { ...h, repository: ctx.refs.idOf('helm_repository', h.repository as string, ctx.address) } };
      }
    },
    recordToRequest(out) {
      if (isObj(out.source)) out.source = helmSourceFromRecord(out.source);
    },
    finishUpdate(body, base, desired) {
      // values_override: each part the manifest sets replaces the live one; set_json, and a values file
      // from git, cannot be declared and stay unless the manifest sets a values file of its own.
      if (isObj(desired.values_override) && isObj(base.values_override)) body.values_override = { ...base.values_override, ...desired.values_override };
    },
    toManifest: (a, s, ctx) => helmToManifest(a, s, ctx),
    unmanagedFields(r) {
      const out: string[] = [];
      if (Array.isArray(r.ports) && r.ports.length > 0) out.push('ports');
      const vo = obj(r.values_override);
      if (Array.isArray(vo.set_json) && vo.set_json.length > 0) out.push('values_override.set_json');
      if ((obj(vo.file).git ?? null) !== null) out.push('values_override.file.git');
      return out;
    },
    deploy: {
      list: 'helms',
      item: (s) => compact({ id: s.id, chart_version: s.chart_version, git_commit_id: s.git_commit_id }),
      bodyFields: ['chart_version', 'git_commit_id', 'values_override_git_commit_id'],
      forceEvent: true,
    },
  },
};

function helmFromManifest(s: HelmSpec, out: ServiceBuild): void {
  const a = out.attrs;
  put(a, 'timeout_sec', num(s.timeout_sec));
  put(a, 'auto_deploy', s.auto_deploy);
  put(a, 'arguments', s.arguments ? [...s.arguments] : undefined);
  put(a, 'allow_cluster_wide_resources', s.allow_cluster_wide_resources);
  if ('helm_repository' in s.source) {
    const h = s.source.helm_repository;
    a.source = { helm_repository: { repository: h.repository, chart_name: h.chart_name, chart_version: String(h.chart_version) } };
  } else {
    const g = gitAttrs(s.source.git_repository);
    if (s.source.chart_path !== undefined) g.root_path = s.source.chart_path;
    a.source = { git_repository: g };
  }
  if (s.values_override) {
    const v = s.values_override;
    const vo: Record<string, unknown> = {};
    if (v.set) vo.set = keyValuePairs(v.set);
    if (v.set_string) vo.set_string = keyValuePairs(v.set_string);
    if (v.file !== undefined) vo.file = { raw: { values: [{ name: 'values.yaml', content: v.file }] } };
    a.values_override = vo;
  }
  if (s.git_commit_id !== undefined) out.deploy = { git_commit_id: s.git_commit_id };
}


/** A live helm source in the request's shape (the chart repository by id), for a PUT that keeps it. */
function helmSourceFromRecord(src: Obj): Obj {
  const { chart, git } = helmSourceParts(src);
  if (chart) return { helm_repository: pick({ ...chart, repository: isObj(chart.repository) ? chart.repository.id : chart.repository }, ['repository', 'chart_name', 'chart_version']) };
  if (git) return { git_repository: gitRequest(git) };
  return src;
}

function helmToManifest(a: Doc, s: LiveResource, ctx: ExportContext): Doc {
  const src = obj(a.source);
  const body: Doc = {};
  if (src.helm_repository) {
    const h = obj(src.helm_repository);
    body.source = { helm_repository: { repository: h.repository, chart_name: h.chart_name, chart_version: h.chart_version } };
  } else {
    const g = obj(src.git_repository);
    const chartPath = g.root_path !== undefined && g.root_path !== PART_DEFAULTS.git_repository.root_path ? g.root_path : undefined;
    body.source = clean({ git_repository: gitRepository(g, ['root_path']), chart_path: chartPath });
    body.git_commit_id = s.deployed?.git_commit_id;
  }
  const vo = obj(a.values_override);
  const values: Doc = {};
  const record = (pairs: unknown) => Object.fromEntries(((pairs as string[][]) ?? []).map(([k, v]) => [k, v]));
  if (Array.isArray(vo.set) && vo.set.length > 0) values.set = record(vo.set);
  if (Array.isArray(vo.set_string) && vo.set_string.length > 0) values.set_string = record(vo.set_string);
  const files = (obj(obj(vo.file).raw).values as Array<{ name?: string; content?: string }> | undefined) ?? [];
  // One raw file, whatever its name (a label only), is the manifest's values document.
  if (files.length === 1) values.file = files[0]!.content ?? '';
  else if (files.length > 1)
    ctx.warnings.push(`${s.address}: ${files.length} raw values_override files (${files.map((f) => f.name).join(', ')}) cannot be written in a manifest, which holds one values document; left out.`);
  body.values_override = values;
  Object.assign(body, { arguments: strs(a.arguments) }, withoutKindDefaults(helmKind, { timeout_sec: a.timeout_sec, allow_cluster_wide_resources: a.allow_cluster_wide_resources }), { auto_deploy: a.auto_deploy });
  return body;
}
