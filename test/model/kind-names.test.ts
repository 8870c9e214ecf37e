/**
 * The resource model folds case-insensitive names with the list in src/model/kinds/names.ts (it
 * may not import the registry: an import cycle); the descriptors say the same per kind. If the two
 * disagreed, plan pairing (matchKey) and the writers' look-up by name would fold different kinds.
 */
import { describe, expect, it } from 'vitest';
import { CASE_INSENSITIVE_KINDS, RESOURCE_KINDS } from '../../src/model/kinds/names.js';
import { caseInsensitiveKinds, descriptors } from '../../src/model/kinds/index.js';
import { isCaseInsensitiveKind, matchKey } from '../../src/model/resource.js';

describe('case-insensitive kinds', () => {
  it('the leaf list and the descriptors name the same kinds', () => {
    const byDescriptor = RESOURCE_KINDS.filter((k) => descriptors()[k].caseInsensitiveName);
    expect([...CASE_INSENSITIVE_KINDS].sort()).toEqual([...byDescriptor].sort());
    expect([...caseInsensitiveKinds()].sort()).toEqual([...byDescriptor].sort());
    for (const k of RESOURCE_KINDS) expect(isCaseInsensitiveKind(k)).toBe(descriptors()[k].caseInsensitiveName);
  });

  it('matchKey folds a database name but not a variable key', () => {
    expect(matchKey('project.Shop/environment.Prod/database.DB/variable.Key')).toBe(matchKey('project.shop/environment.prod/database.db/variable.Key'));
    expect(matchKey('project.shop/environment.prod/database.db/variable.Key')).not.toBe(matchKey('project.shop/environment.prod/database.db/variable.key'));
  });
});
