/**
 * The ONE list of the differences from the real API's OpenAPI document (test/fixtures/reference/,
 * vendored from qovery-openapi.yaml) that the seed (the specification kept beside the repository, the law
 * where it speaks) sanctions: where the seed defines a field, a body or an enumeration otherwise,
 * the emulator and driftless follow the seed. Each entry names the operations, the part of the
 * exchange, the problem it explains (matched against the checker's detail line) and why.
 *
 * Used by test/e2e/reference-shapes.test.ts: every request and response of its scenario is valid
 * against the reference or explained by exactly one entry here; an entry that explains nothing in
 * the scenario fails that test too (no entry outlives its reason). The human-readable table of the
 * emulator's deliberate choices is in src/emulator/README.md ("Deliberate differences").
 */
import type { SanctionedDifference } from './reference-check.js';

/** The answers holding variable records: the variable API, and the older one of each scope (project, environment, service). */
const SCOPED_VARIABLE_ANSWERS = ['project/{projectId}', 'environment/{environmentId}', 'application/{applicationId}', 'container/{containerId}', 'job/{jobId}'].flatMap((scope) =>
  ['environmentVariable', 'secret'].flatMap((what) => {
    const id = what === 'secret' ? '{secretId}' : '{environmentVariableId}';
    return [`GET /${scope}/${what}`, `POST /${scope}/${what}`, `PUT /${scope}/${what}/${id}`, `POST /${scope}/${what}/${id}/alias`, `POST /${scope}/${what}/${id}/override`];
  }),
);
const VARIABLE_ANSWERS = ['GET /variable', 'POST /variable', 'PUT /variable/{variableId}', 'POST /variable/{variableId}/alias', 'POST /variable/{variableId}/override', ...SCOPED_VARIABLE_ANSWERS];

export const REFERENCE_DIFFERENCES: SanctionedDifference[] = [
  {
    id: 'error-body',
    operations: ['*'],
    where: 'response',
    problem: /^4\d\d a body was sent but none is declared$/,
    seed: '7 Errors',
    reason: 'Error responses are JSON objects {status, error, message}; the reference declares its error statuses without a body.',
  },
  {
    id: 'variable-description-null',
    operations: VARIABLE_ANSWERS,
    where: 'response',
    problem: /^20[01] \/(?:results\/\*\/)?description must be string$/,
    seed: '2.2 Variable record',
    reason: 'description is "string or null": a variable without one answers null (the reference types it string).',
  },
  {
    id: 'variable-pointer-mount-path-null',
    operations: VARIABLE_ANSWERS,
    where: 'response',
    problem: /^20[01] \/(?:results\/\*\/)?(?:overridden|aliased)_variable\/mount_path must be string$/,
    seed: '2.2 Variable record',
    reason: 'overridden_variable / aliased_variable list mount_path, which is "string or null" on the record (null unless the variable is a file).',
  },
  {
    id: 'database-instance-type-null',
    operations: ['GET /environment/{environmentId}/services', 'POST /environment/{environmentId}/database', 'GET /database/{databaseId}', 'PUT /database/{databaseId}', 'GET /environment/{environmentId}/database'],
    where: 'response',
    problem: /^20[01] \/(?:results\/\*\/)?instance_type must be string$/,
    seed: '2.4 Database record',
    reason: 'instance_type is "string or null; null for container mode" (the reference types it string).',
  },
  {
    id: 'webhook-event-kinds',
    operations: ['POST /organization/{organizationId}/webhook', 'PUT /organization/{organizationId}/webhook/{webhookId}', 'GET /organization/{organizationId}/webhook', 'GET /organization/{organizationId}/webhook/{webhookId}', 'GET /organization/{organizationId}/webhook/{webhookId}/event'],
    where: 'response',
    problem: /^20[01] \/(?:results\/\*\/)?(?:events\/\*|matched_event) must be equal to one of the allowed values/,
    seed: '6 Events',
    reason: 'The event kinds are DEPLOYMENT_STARTED, DEPLOYMENT_SUCCEEDED and DEPLOYMENT_FAILED (the reference: _STARTED, _CANCELLED, _FAILURE, _SUCCESSFUL), in a webhook and in the deliveries it lists (matched_event).',
  },
  {
    id: 'webhook-event-kinds-request',
    operations: ['POST /organization/{organizationId}/webhook', 'PUT /organization/{organizationId}/webhook/{webhookId}'],
    where: 'request',
    problem: /^\/events\/\* must be equal to one of the allowed values/,
    seed: '6 Events',
    reason: 'driftless subscribes with the seed\'s event kinds (DEPLOYMENT_SUCCEEDED, DEPLOYMENT_FAILED), which the reference spells otherwise.',
  },
  {
    id: 'application-git-repository',
    operations: ['POST /environment/{environmentId}/application', 'PUT /application/{applicationId}'],
    where: 'request',
    problem: /^\/git_repository must have required property '(?:owner|name)'$/,
    seed: '4.2 Operations (POST /environment/{environment_id}/application)',
    reason: 'The body\'s git_repository is {url, branch}; the reference also requires owner and name, which the URL already holds.',
  },
  {
    id: 'job-git-repository',
    operations: ['POST /environment/{environmentId}/job', 'PUT /job/{jobId}'],
    where: 'request',
    problem: /^\/source\/docker\/git_repository must have required property '(?:owner|name)'$/,
    seed: '4.2 Operations (git_repository {url, branch}, as for an application)',
    reason: 'A job built from git names its repository as an application does, {url, branch} (and the provider); owner and name are in the URL.',
  },
  {
    id: 'terraform-parse-git-repository',
    operations: ['POST /organization/{organizationId}/parseTerraformVariablesFromGitRepo'],
    where: 'request',
    problem: /^\/git_repository must have required property '(?:owner|name)'$/,
    seed: '4.2 Operations (parseTerraformVariablesFromGitRepo: git_repository {url, provider, branch, root_path, git_token_id})',
    reason: 'The seed\'s git_repository has no owner or name (the URL holds them); driftless sends url, provider, branch and root_path.',
  },
  {
    id: 'application-status-reduced',
    operations: ['GET /application/{applicationId}/status'],
    where: 'response',
    problem: /^200 \/ must have required property '(?:status_details|is_part_last_deployment|deployment_requests_count|deployment_request_id)'$/,
    seed: '2.9 Service status record ("The application status endpoint returns a reduced record with id, state, service_deployment_status and last_deployment_date")',
    reason: 'The seed defines the application status as a reduced record; the reference gives it the full service status.',
  },
  {
    id: 'edit-creates-port-without-id',
    operations: ['PUT /application/{applicationId}', 'PUT /container/{containerId}'],
    where: 'request',
    problem: /^\/ports\/\* must have required property 'id'$/,
    seed: 'reference api-notes (ApplicationEditRequest: "Ports/storage are matched by id: with id = update, without id = create")',
    reason: 'A port the edit adds has no id yet; the reference\'s edit request reuses the answer\'s port list, which requires one.',
  },
  {
    id: 'application-deploy-body',
    operations: ['POST /application/{applicationId}/deploy'],
    where: 'request',
    problem: /^\/ must have required property 'git_commit_id'$/,
    seed: '4.2 Operations (POST /application/{app_id}/deploy: "optional git_commit_id")',
    reason: 'git_commit_id is optional (the current commit is deployed); driftless\'s permission probe sends {} to a nil id.',
  },
];
