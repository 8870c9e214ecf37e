/**
 * The one walk of a parsed file (src/manifest/file-walk.ts) gives exactly what the two walks it
 * replaces give: findSecretRanges' ranges and checkNumbers' diagnostics, in the same order, with
 * the same depth limits.
 */
import { describe, expect, it } from 'vitest';
import { walkParsedFile } from '../../src/manifest/file-walk.js';
import { checkNumbers } from '../../src/manifest/numbers.js';
import { findSecretRanges } from '../../src/manifest/secret-ranges.js';
import { parseYamlFile } from '../../src/manifest/parse-yaml.js';
import { attachFieldSource } from '../../src/manifest/source-map.js';

const same = (root: unknown, file = 'm.yaml') => {
  const walked = walkParsedFile(root, file);
  expect(walked.secretRanges).toEqual(findSecretRanges(root));
  expect(walked.numberDiagnostics()).toEqual(checkNumbers(root, file));
  return walked;
};

describe('one walk for secrets and numbers', () => {
  it('finds the secrets and the numbers of a file in the order the two walks did', () => {
    const text = `version: 1
alert_receivers:
  - {name: ops, type: SLACK, webhook_url: "https://hooks.example.com/x", auth_password: "\${env:PW}"}
webhooks:
  - {target_url: "https://x.example.com", secret: "hunter2", port: .inf}
projects:
  - name: shop
    variables:
      - {key: A, value: "\${env:A}", secret: true}
      - {key: B, value: "clear", secret: true}
      - {key: C, value: 9007199254740993}
      - {key: D, value: "x", secret: yes-please}
    services:
      - type: terraform
        tf_vars: {a: "1", b: "\${env:B:-dflt}"}
        sensitive_tf_vars: [b]
        sizes: [1, 1e400, -.inf, 2]
`;
    const parsed = parseYamlFile(text, 'm.yaml');
    expect(parsed.diagnostics).toEqual([]);
    const walked = same(parsed.value);
    expect(walked.secretRanges.map((r) => r.start.line)).toEqual([3, 5, 10, 12, 12, 15]);
    expect(walked.numberDiagnostics().map((d) => d.range?.start.line)).toEqual([5, 11, 17, 17]);
  });

  it('stops where each walk stopped: secrets below depth 80, numbers below depth 200', () => {
    // A chain of lists, with at each depth a mapping holding a secret in clear and a number too large.
    const root: unknown[] = [];
    let at = root;
    for (let depth = 1; depth <= 230; depth++) {
      const holder = { value: 'clear', secret: true, n: 2 ** 60 };
      attachFieldSource(holder, 'value', { file: 'm.yaml', start: { line: depth, col: 1 } });
      attachFieldSource(holder, 'n', { file: 'm.yaml', start: { line: depth, col: 9 } });
      const next: unknown[] = [];
      at.push(holder, next);
      at = next;
    }
    const walked = same(root);
    // The mapping of depth d is at depth d (the root list is at 0).
    expect(walked.secretRanges.map((r) => r.start.line)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(walked.numberDiagnostics().map((d) => d.range?.start.line)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });
});
