#!/usr/bin/env node
/**
 * Top self-time functions of a V8 CPU profile (`node --cpu-prof`), then self time per stage (the
 * directory of dist/ or the package a function is in):
 *   node bench/profile-summary.mjs FILE.cpuprofile [--top 15]
 */
import { readFileSync } from 'node:fs';
const [file, , top = '15'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const self = new Map();
const stages = new Map();
const stageOf = (url, name) => {
  if (!url) return name.startsWith('(') ? name : '(native)';
  let m = /\/dist\/([^/]+)\//.exec(url);
  if (m && !url.includes('node_modules')) return `driftless ${m[1]}/`;
  m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return `package ${m[1]}`;
  return url.startsWith('node:') ? 'node internals (module loading, fs, crypto)' : url;
};
let total = 0;
for (const n of p.nodes) {
  const t = (dt.get(n.id) ?? 0) / 1000;
  total += t;
  const cf = n.callFrame;
  const where = cf.url ? `${cf.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${cf.lineNumber + 1}` : '';
  const key = `${cf.functionName || '(anonymous)'} ${where}`;
  self.set(key, (self.get(key) ?? 0) + t);
  const st = stageOf(cf.url, cf.functionName);
  stages.set(st, (stages.get(st) ?? 0) + t);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top));
console.log(`total ${total.toFixed(0)} ms sampled`);
for (const [k, t] of rows) console.log(`${t.toFixed(0).padStart(6)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
console.log('by stage (self time):');
for (const [k, t] of [...stages].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`${t.toFixed(0).padStart(6)} ms ${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
