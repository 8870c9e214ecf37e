/** The `database` kind (src/model/kinds/descriptor.ts). */
import { renamed, same, serviceCommon } from '../ignore-table.js';
import type { ServiceKindDescriptor } from './descriptor.js';
import { serviceFromRecord } from '../../live/record-helpers.js';
import { error as codeError } from '../../manifest/codes.js';
import { sourceOf } from '../../manifest/types.js';
import { compact, num, put } from '../../graph/attrs.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';
import { addressOf, parseAddress } from '../resource.js';

export const databaseKind: ServiceKindDescriptor<'database'> = {
  kind: 'database',
  fromRecord: (r, lookup) => serviceFromRecord(r, lookup, databaseKind.service.fromRecord),
  apiType: 'DATABASE',
  caseInsensitiveName: true,
  parent: 'environment',
  holdsData: true,
  immutableFields: ['type', 'mode'],
  requestFields: [
    'name', 'description', 'version', 'accessibility', 'cpu', 'memory', 'storage', 'instance_type', 'annotations_groups',
    'labels_groups', 'icon_uri', 'disk_type',
  ],
  manifestDefaults: { accessibility: 'PRIVATE', cpu: 250, storage: 10 },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...renamed('database_type', 'type'),
    ...same('version', 'mode', 'accessibility', 'cpu', 'memory', 'storage', 'instance_type', 'disk_type'),
  },
  service: {
    deleteIds: 'database_ids',
    instanceTypeListed: true,
    builtIns: [
      { suffix: 'HOST_INTERNAL', secret: false },
      { suffix: 'PORT', secret: false },
      { suffix: 'LOGIN', secret: false },
      { suffix: 'DEFAULT_DATABASE_NAME', secret: false },
      { suffix: 'PASSWORD', secret: true },
      { suffix: 'DATABASE_URL_INTERNAL', secret: true },
    ],
    cloneSource: (s) =>
      s.clone_from ? { holder: s.clone_from, field: 'database', name: s.clone_from.database, project: s.clone_from.project, environment: s.clone_from.environment } : undefined,
    checkShape(s, c) {
      if (s.mode === 'CONTAINER') {
        for (const k of ['instance_type', 'disk_type']) {
          if (c.present(s, k)) c.report(codeError('manifest.only-with', `\`${k}\` of ${c.what} applies to managed databases only`, { detail: 'Set `mode: MANAGED`, or remove it: a container database uses cpu and memory.', range: c.at(s, k), address: c.address }));
        }
      } else if (!c.present(s, 'instance_type')) {
        c.report(codeError('schema.missing-key', `managed ${c.what} is missing \`instance_type\``, { detail: "A managed database runs on an instance type of the provider's listing for the cluster's region.", range: sourceOf(s), address: c.address }));
      }
    },
    // A managed database is sized by its instance type: its cpu and memory are not bounded (seed 2.4).
    limited: (s) =>
      s.mode === 'MANAGED'
        ? []
        : [
            { holder: s, field: 'cpu', label: 'cpu', value: s.cpu, resource: 'cpu' },
            { holder: s, field: 'memory', label: 'memory', value: s.memory, resource: 'memory' },
          ],
    fromManifest(s, out, env, b) {
      const a = out.attrs;
      a.type = s.database_type;
      a.version = String(s.version);
      a.mode = s.mode;
      put(a, 'accessibility', s.accessibility);
      put(a, 'cpu', num(s.cpu));
      put(a, 'memory', num(s.memory));
      put(a, 'storage', num(s.storage));
      put(a, 'instance_type', s.instance_type);
      put(a, 'disk_type', s.disk_type);
      if (s.clone_from) {
        const segs = parseAddress(env);
        const project = s.clone_from.project ?? segs[0]!.name!;
        const environment = s.clone_from.environment ?? segs[1]!.name!;
        const source = addressOf('database', s.clone_from.database, addressOf('environment', environment, addressOf('project', project)));
        out.cloneFrom = source;
        if (b.resources.has(source)) out.dependsOn.push(source);
        // A source declared later in the manifest is linked in resolveCloneSources (after the walk).
        else b.pendingClones.push({ address: addressOf('database', s.name, env), source, range: sourceOf(s, 'clone_from') });
      }
    },
    fromRecord(r, a) {
      Object.assign(
        a,
        compact({
          type: r.type,
          version: r.version === undefined || r.version === null ? undefined : String(r.version),
          mode: r.mode,
          accessibility: r.accessibility ?? undefined,
          cpu: num(r.cpu),
          memory: num(r.memory),
          storage: num(r.storage),
          instance_type: r.instance_type ?? undefined,
          disk_type: r.disk_type ?? undefined,
        }),
      );
      return undefined;
    },
    toManifest(a) {
      return {
        database_type: a.type,
        version: a.version,
        mode: a.mode,
        ...withoutKindDefaults(databaseKind, { accessibility: a.accessibility, cpu: a.cpu, storage: a.storage }),
        memory: a.memory,
        instance_type: a.instance_type,
        disk_type: a.disk_type,
      };
    },
    deploy: { list: 'databases', item: (s) => s.id, bodyFields: [] },
  },
};
