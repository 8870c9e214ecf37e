#!/usr/bin/env node
// Fails when a vitest JSON report (--reporter=json) holds a skipped, pending or todo test, naming
// each one: a suite that skips what it cannot run (a file outside the repository, a missing tool)
// passes while checking less than it says. Usage: node scripts/no-skipped-tests.mjs REPORT.json
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/no-skipped-tests.mjs REPORT.json');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const skipped = [];
for (const suite of report.testResults ?? [])
  for (const t of suite.assertionResults ?? [])
    if (!['passed', 'failed'].includes(t.status)) skipped.push(`${suite.name}: ${t.fullName ?? t.title} (${t.status})`);
const total = report.numTotalTests ?? 0;
if (total === 0) {
  console.error(`${file}: no test ran`);
  process.exit(1);
}
if (skipped.length > 0) {
  console.error(`${skipped.length} of ${total} tests did not run:\n${skipped.map((s) => `  ${s}`).join('\n')}`);
  process.exit(1);
}
console.log(`${total} tests ran, none skipped.`);
