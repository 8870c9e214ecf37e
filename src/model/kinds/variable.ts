/** The `variable` kind (src/model/kinds/descriptor.ts). */
import { same } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

export const variableKind: KindDescriptor<'variable'> = {
  kind: 'variable',
  auditedAs: { subTypes: ['VARIABLE', 'SECRET'] },
  caseInsensitiveName: false,
  immutableFields: ['is_secret', 'variable_type', 'mount_path', 'aliased_key', 'aliased_scope', 'aliased_service', 'aliased_builtin', 'overridden_scope'],
  manifestDefaults: { override: false, secret: false, enable_interpolation_in_file: false },
  ignorePaths: same('value', 'description', 'enable_interpolation_in_file'),
};
