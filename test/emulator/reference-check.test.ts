/**
 * The checker of recorded exchanges against the reference (reference-check.ts), on a small document:
 * what it accepts, what it reports, and how a sanctioned difference is told from a failure.
 */
import { describe, expect, it } from 'vitest';
import { checkAgainstReference, type RecordedExchange, type SanctionedDifference } from './reference-check.js';

const doc = {
  paths: {
    '/application/{applicationId}': {
      get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Application' } } } }, '404': { $ref: '#/components/responses/404' } } },
      put: { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Application' } } } }, responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Application' } } } } } },
    },
    '/organization/{organizationId}/events': {
      get: {
        parameters: [{ name: 'pageSize', in: 'query', schema: { type: 'number' } }, { $ref: '#/components/parameters/from' }],
        responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties: { events: { type: 'array' } } } } } } },
      },
    },
    '/environment/{environmentId}/services': {
      get: {
        responses: {
          '200': {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    results: {
                      type: 'array',
                      items: { oneOf: [{ $ref: '#/components/schemas/Application' }, { $ref: '#/components/schemas/Database' }], discriminator: { propertyName: 'service_type', mapping: { APPLICATION: '#/components/schemas/Application', DATABASE: '#/components/schemas/Database' } } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    parameters: { from: { name: 'fromTimestamp', in: 'query', schema: { type: 'string' } } },
    responses: { '404': {} },
    schemas: {
      Application: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          service_type: { type: 'string' },
          ports: { type: 'array', items: { type: 'object', required: ['internal_port'], properties: { internal_port: { type: 'integer' }, external_port: { type: 'integer' } } } },
          disk_type: { type: 'string', nullable: true, enum: ['gp2', 'gp3'] },
        },
      },
      Database: { type: 'object', required: ['name', 'mode'], properties: { name: { type: 'string' }, mode: { type: 'string' }, instance_type: { type: 'string' } } },
    },
  },
  'x-operation-index': ['GET /application/{applicationId}', 'PUT /application/{applicationId}', 'DELETE /application/{applicationId}', 'GET /organization/{organizationId}/events', 'GET /environment/{environmentId}/services'],
};

const APP = '/application/6f1c3f0e-0000-4000-8000-000000000001';
const ex = (e: Partial<RecordedExchange> & Pick<RecordedExchange, 'method' | 'path' | 'status'>): RecordedExchange => ({ query: '', ...e });

describe('checkAgainstReference', () => {
  it('accepts valid exchanges, reads nullable beside an enum as admitting null, and a $ref response without a body', () => {
    const r = checkAgainstReference(doc, [
      ex({ method: 'GET', path: APP, status: 200, responseBody: JSON.stringify({ name: 'api', ports: [{ internal_port: 80 }], disk_type: null }) }),
      ex({ method: 'GET', path: '/organization/o/events', query: 'pageSize=100&fromTimestamp=2026-01-01T00%3A00%3A00Z', status: 200, responseBody: '{"events":[]}' }),
      ex({ method: 'GET', path: '/application/x', status: 404 }),
    ], []);
    expect(r.unexplained).toEqual([]);
    expect(r.checked).toBe(3);
    expect([...r.covered].sort()).toEqual(['GET /application/{applicationId}', 'GET /organization/{organizationId}/events']);
  });

  it('reports a null where the reference types a field otherwise, in a request and in an answer', () => {
    const withNull = JSON.stringify({ name: 'api', ports: [{ internal_port: 80, external_port: null }] });
    const r = checkAgainstReference(doc, [
      ex({ method: 'PUT', path: APP, status: 200, requestBody: withNull, responseBody: withNull }),
    ], []);
    expect(r.unexplained).toEqual([
      'PUT /application/{applicationId} request: /ports/*/external_port must be integer',
      'PUT /application/{applicationId} response: 200 /ports/*/external_port must be integer',
    ]);
  });

  it('reports undeclared query parameters and statuses, a missing required body, and an error body the reference does not declare', () => {
    const r = checkAgainstReference(doc, [
      ex({ method: 'GET', path: '/organization/o/events', query: 'projectId=p&pageSize=ten', status: 200, responseBody: '{"events":[]}' }),
      ex({ method: 'PUT', path: APP, status: 201, responseBody: '{}' }),
      ex({ method: 'GET', path: APP, status: 404, responseBody: '{"status":404}' }),
    ], []);
    expect(r.unexplained).toEqual([
      'GET /organization/{organizationId}/events query: ?projectId not declared',
      'GET /organization/{organizationId}/events query: ?pageSize=ten must be number',
      'PUT /application/{applicationId} request: no body, one is required',
      'PUT /application/{applicationId} status: 201 not declared (declared: 200)',
      'GET /application/{applicationId} response: 404 a body was sent but none is declared',
    ]);
  });

  it('checks a list of mixed services branch by branch (the discriminator names the branch) and reports that branch\'s errors only', () => {
    const r = checkAgainstReference(doc, [
      ex({ method: 'GET', path: '/environment/e/services', status: 200, responseBody: JSON.stringify({ results: [{ name: 'api', service_type: 'APPLICATION' }, { name: 'db', service_type: 'DATABASE', mode: 'CONTAINER', instance_type: null }] }) }),
    ], []);
    expect(r.unexplained).toEqual(['GET /environment/{environmentId}/services response: 200 /results/*/instance_type must be string']);
  });

  it('tells a path the reference lacks from one not vendored, and counts what a sanctioned difference explains', () => {
    const differences: SanctionedDifference[] = [
      { id: 'openapi', operations: ['GET /openapi.json'], where: 'path', problem: /^not in the reference/, seed: '9', reason: 'the emulator serves its document' },
      { id: 'error-body', operations: ['*'], where: 'response', problem: /^404 a body was sent/, seed: '7', reason: 'error bodies' },
    ];
    const r = checkAgainstReference(doc, [
      ex({ method: 'GET', path: '/openapi.json', status: 200, responseBody: '{}' }),
      ex({ method: 'GET', path: '/openapi.json', status: 200, responseBody: '{}' }),
      ex({ method: 'DELETE', path: APP, status: 204 }),
      ex({ method: 'GET', path: APP, status: 404, responseBody: '{"status":404}' }),
      ex({ method: 'GET', path: '/nowhere', status: 404 }),
    ], differences);
    expect(r.unexplained).toEqual([
      'DELETE /application/{applicationId}: in the reference but not vendored (add it to test/fixtures/reference/selection.json and run node scripts/vendor-reference.mjs)',
      'GET /nowhere path: not in the reference (status 404)',
    ]);
    expect(Object.fromEntries(r.sanctioned)).toEqual({ openapi: 2, 'error-body': 1 });
  });
});
