/**
 * The route table (src/api/routes.ts): the one place the reconciler's API paths are built. The
 * refresh reads its cached request keys back with listRouteOf, so every list route must parse back
 * to what it lists (a list the reader requests that the refresh could not place would never be
 * trusted from the cache, or worse, be taken for another); and no other module spells a path.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_LISTS, listRouteOf, ORG_LISTS, routes, type OrgListName } from '../../src/api/routes.js';
import { shapeOf } from '../../src/live/touched.js';

const UUID = '3f2b6c1e-8d4a-4f7b-9c2e-1a5d7e9f0b3c';

describe('the route table', () => {
  it('every list route parses back to the list it reads', () => {
    expect(listRouteOf(routes.organization())).toEqual({ kind: 'organization' });
    for (const name of Object.keys(ORG_LISTS) as OrgListName[]) {
      expect(listRouteOf(routes.orgList(UUID, name))).toEqual({ kind: 'org-list', org: UUID, list: ORG_LISTS[name] });
    }
    expect(listRouteOf(routes.environments(UUID))).toEqual({ kind: 'environments', project: UUID });
    for (const list of ENVIRONMENT_LISTS) expect(listRouteOf(routes.environmentList(UUID, list))).toEqual({ kind: 'env-list', env: UUID, list });
    expect(listRouteOf(routes.variables(), `parent_id=${UUID}&scope=APPLICATION`)).toEqual({ kind: 'variables', parent: UUID });
    // The refresh's request keys (`path?sorted query`) parse the same way.
    expect(shapeOf(`${routes.variables()}?parent_id=${UUID}&scope=PROJECT`)).toEqual({ kind: 'variables', parent: UUID });
    expect(shapeOf(routes.orgList(UUID, 'clusterStatuses'))).toEqual({ kind: 'org-list', org: UUID, list: 'cluster/status' });
  });

  it('what is not a list the reader makes is "other" (never trusted from the cache)', () => {
    for (const p of [routes.projectItem(UUID), routes.environmentItem(UUID), routes.serviceItem('application', UUID), routes.deploymentHistory(UUID), routes.variableItem(UUID), routes.variables(), routes.environmentDeploy(UUID)]) {
      expect(listRouteOf(p)).toEqual({ kind: 'other' });
    }
  });

  it('builds the paths of the seed, with the ids encoded so that none can forge a path', () => {
    expect(routes.environmentList(UUID, 'services')).toBe(`/environment/${UUID}/services`);
    expect(routes.environmentServices(UUID, 'helm')).toBe(`/environment/${UUID}/helm`);
    expect(routes.orgListItem(UUID, 'webhooks', 'w1')).toBe(`/organization/${UUID}/webhook/w1`);
    expect(routes.variableDerived(UUID, 'alias')).toBe(`/variable/${UUID}/alias`);
    expect(routes.projectItem('a/../../organization')).toBe('/project/a%2F..%2F..%2Forganization');
    // And read back as the id it was.
    expect(listRouteOf(routes.environments('a/b'))).toEqual({ kind: 'environments', project: 'a/b' });
  });
});

/** API path roots: a string literal starting with one of these is a path of the API. */
const API_ROOT = /^\/(organization|project|environment|application|container|database|job|helm|terraform|variable|deploymentStage|alert-receivers|alert-rules|cluster|aws|gcp|scaleway)(\/|$|\?)/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The string literals (and template heads) of a file that are API paths. */
function apiPathLiterals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteralLike(node) || ts.isTemplateHead(node)) && API_ROOT.test(node.text)) out.push(node.text);
    node.forEachChild(visit);
  };
  visit(source);
  return out;
}

describe('paths are built in one place', () => {
  it('no module of the reconciler outside src/api spells an API path (the emulator serves them: it is the other side)', () => {
    const root = path.resolve(import.meta.dirname, '../../src');
    const found = filesUnder(root)
      .filter((f) => !f.startsWith(path.join(root, 'api') + path.sep) && !f.startsWith(path.join(root, 'emulator') + path.sep))
      .flatMap((f) => apiPathLiterals(f, readFileSync(f, 'utf8')).map((s) => `${path.relative(root, f)}: ${s}`));
    expect(found).toEqual([]);
  });

  it('the check sees a path in a string and in a template literal', () => {
    expect(apiPathLiterals('x.ts', "const a = '/organization'; const b = `/environment/${id}/services`; const c = '/'; const d = 'project/x';")).toEqual(['/organization', '/environment/']);
  });
});
