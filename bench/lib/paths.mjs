/**
 * Where the benchmark finds the compiled driftless (`npm run bench` builds `dist/` first).
 * DRIFTLESS_DIST overrides it (a private build while others rebuild `dist/`).
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.resolve(process.env.DRIFTLESS_DIST ?? path.join(REPO_ROOT, 'dist'));
export const BIN = path.join(REPO_ROOT, 'bin', 'driftless.js');

/** Imports a compiled module of driftless, e.g. `dist('emulator/server.js')`. */
export function dist(rel) {
  return import(pathToFileURL(path.join(DIST, rel)).href);
}
