/**
 * checkCompleteness reads the parsed files as they are, schema-valid or not (a file that fails the
 * schema still counts for the cluster it writes): whatever shape a broken file has (a project or an
 * environment without a name, entries that are not mappings, lists that are not lists), it reports
 * only the environments it can name, and never throws.
 */
import { describe, expect, it } from 'vitest';
import { checkCompleteness } from '../../src/manifest/completeness.js';

describe('checkCompleteness on files that fail the schema', () => {
  it('skips a project or an environment without a name, and entries that are not mappings', () => {
    const files = [
      {
        file: 'broken.yaml',
        value: {
          projects: [
            null,
            'shop',
            ['x'],
            42,
            { environments: [{ name: 'prod' }] },
            { name: 7, environments: [{ name: 'prod' }] },
            { name: 'shop', environments: [null, 'prod', [{ name: 'x' }], { cluster: 'c1' }, { name: ['prod'] }, { name: 'staging' }] },
          ],
        },
      },
    ];
    const d = checkCompleteness(files);
    expect(d.map((x) => [x.code, x.summary, x.address])).toEqual([['schema.missing-key', 'environment `staging` of project `shop` is missing `cluster`', 'project.shop/environment.staging']]);
  });

  it('takes lists that are not lists as empty', () => {
    expect(checkCompleteness([{ file: 'a.yaml', value: { projects: { name: 'shop' } } }, { file: 'b.yaml', value: { projects: [{ name: 'shop', environments: 'prod' }] } }])).toEqual([]);
  });

  it('counts a cluster written in any file, in any letter case of the names', () => {
    const files = [
      { file: 'a.yaml', value: { projects: [{ name: 'Shop', environments: [{ name: 'Prod' }] }] } },
      { file: 'b.yaml', value: { projects: [{ name: 'shop', environments: [{ name: 'prod', cluster: 'c1' }] }] } },
    ];
    expect(checkCompleteness(files)).toEqual([]);
  });
});
