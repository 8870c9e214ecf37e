/**
 * The manifest the preview tests declare: project `shop` whose template `web-stack` (an `api`
 * application, optionally a `web` one and a `pg` database, each public application on its own
 * port) makes the previews `pr-{number}` on staging-cluster, and the declared environment
 * `staging` made from the same template. One builder, so that the end-to-end, workflow and
 * manifest tests speak of the same stack and differ only where they say so.
 */

export interface PreviewDeclaration {
  ttl?: string;
  /** Written only when given (absent: the declaration's default, false). */
  allowDataLoss?: boolean;
  /** Lines under `overrides: services:`, e.g. `web: { cpu: 100 }`. */
  serviceOverrides?: string[];
}

export interface PreviewManifestOptions {
  /** The template's services besides `api` (default both: `pg` in a first stage, the applications in a second). */
  services?: ReadonlyArray<'web' | 'pg'>;
  /** The `previews:` block: a declaration, or its YAML as is (indented six spaces: a manifest test's own). */
  previews?: PreviewDeclaration | string;
  /** `prune: {environments: true}` on the project. */
  pruneEnvironments?: boolean;
  /** YAML appended to the project's `environments:` (after `staging`), indented six spaces. */
  moreEnvironments?: string;
  /** YAML appended to `projects:` (another project), indented two spaces. */
  moreProjects?: string;
}

const application = (name: string, port: number) => `          - type: application
            name: ${name}
            git_repository: { url: "https://github.com/acme/${name}.git", branch: main }
            dockerfile_path: Dockerfile
            cpu: 250
            memory: 256
            ports: [{ name: http, internal_port: ${port}, publicly_accessible: true }]
`;

const DATABASE = `          - type: database
            name: pg
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
`;

/** The `previews:` block of a declaration, as previewManifest writes it (indented six spaces). */
export function previewsYaml(d: PreviewDeclaration): string {
  const lines = ['      template: web-stack', '      name: "pr-{number}"', '      cluster: staging-cluster'];
  if (d.ttl !== undefined) lines.push(`      ttl: ${d.ttl}`);
  if (d.allowDataLoss !== undefined) lines.push(`      allow_data_loss: ${d.allowDataLoss}`);
  if (d.serviceOverrides?.length) lines.push('      overrides:', '        services:', ...d.serviceOverrides.map((l) => `          ${l}`));
  return lines.join('\n');
}

export function previewManifest(o: PreviewManifestOptions = {}): string {
  const services = o.services ?? ['web', 'pg'];
  const apps = services.includes('web') ? ['api', 'web'] : ['api'];
  const stages = services.includes('pg') ? `        deployment_stages:\n          - name: data\n            services: [pg]\n          - name: apps\n            services: [${apps.join(', ')}]\n` : '';
  const previews = typeof o.previews === 'string' ? o.previews : previewsYaml(o.previews ?? {});
  return `version: 1
projects:
  - name: shop
${o.pruneEnvironments ? '    prune: { environments: true }\n' : ''}    templates:
      - name: web-stack
${stages}        services:
${services.includes('pg') ? DATABASE : ''}${application('api', 8080)}${services.includes('web') ? application('web', 3000) : ''}    previews:
${previews}
    environments:
      - name: staging
        cluster: staging-cluster
        template: web-stack
${o.moreEnvironments ?? ''}${o.moreProjects ?? ''}`;
}
