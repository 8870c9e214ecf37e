/**
 * The organizations the benchmark builds: projects × environments per project × services per
 * environment, each service with 10 variables and 2 secrets, each environment with 2 variables
 * and 3 deployment stages, each project with 2 variables and 1 secret.
 *
 * One description (`orgSpec`) feeds both sides, so they cannot disagree:
 *  - `writeManifest` writes the driftless manifest (one YAML file per project) to a directory;
 *  - `populate.mjs` creates the same records through the emulator's API.
 * Services alternate between applications (built from git) and containers (from an image).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SIZES = {
  '1x1x10': { projects: 1, environments: 1, services: 10 },
  '1x3x30': { projects: 1, environments: 3, services: 30 },
  '1x10x100': { projects: 1, environments: 10, services: 100 },
  '5x10x100': { projects: 5, environments: 10, services: 100 },
};

export const VARS_PER_SERVICE = 10;
export const SECRETS_PER_SERVICE = 2;
export const STAGES = [
  { name: 'core', description: 'Shared backends first', share: 0.2 },
  { name: 'backend', description: 'Then the APIs', share: 0.5 },
  { name: 'frontend', description: 'Then what users see', share: 0.3 },
];

/** Values of the `${env:...}` secrets the manifests use (not real secrets: benchmark fixtures). */
export const SECRET_ENV = {
  BENCH_SECRET_A: 'bench-secret-value-a',
  BENCH_SECRET_B: 'bench-secret-value-b',
  BENCH_PROJECT_SECRET: 'bench-project-secret',
};

export function sizeLabel(size) {
  return `${size.projects}x${size.environments}x${size.services}`;
}

export function parseSize(label) {
  if (SIZES[label]) return { ...SIZES[label] };
  const m = /^(\d+)x(\d+)x(\d+)$/.exec(label);
  if (!m) throw new Error(`size '${label}': expected PxExS, e.g. 1x3x30`);
  return { projects: Number(m[1]), environments: Number(m[2]), services: Number(m[3]) };
}

const pad = (n, w) => String(n).padStart(w, '0');

/** Which stage the i-th service (0-based) of an environment of n services belongs to. */
export function stageIndexOf(i, n) {
  let acc = 0;
  for (let s = 0; s < STAGES.length; s++) {
    acc += STAGES[s].share;
    if (i < Math.round(acc * n)) return s;
  }
  return STAGES.length - 1;
}

/**
 * The whole organization as plain data. `valueSuffix` changes one variable's value (the
 * one-variable-change scenario edits `VAR_00` of the first service of the first environment).
 */
export function orgSpec(size, opts = {}) {
  const w = Math.max(3, String(size.services).length);
  const projects = [];
  for (let p = 0; p < size.projects; p++) {
    const environments = [];
    for (let e = 0; e < size.environments; e++) {
      const services = [];
      for (let s = 0; s < size.services; s++) {
        const name = `svc-${pad(s, w)}`;
        const kind = s % 2 === 0 ? 'application' : 'container';
        const variables = [];
        for (let v = 0; v < VARS_PER_SERVICE; v++) {
          let value = `v${v}-${name}`;
          if (opts.changed && p === 0 && e === 0 && s === 0 && v === 0) value = `${value}-${opts.changed}`;
          variables.push({ key: `VAR_${pad(v, 2)}`, value });
        }
        variables.push({ key: 'SECRET_A', secretEnv: 'BENCH_SECRET_A' });
        variables.push({ key: 'SECRET_B', secretEnv: 'BENCH_SECRET_B' });
        services.push({ kind, name, stage: STAGES[stageIndexOf(s, size.services)].name, variables });
      }
      environments.push({
        name: `env-${pad(e, 2)}`,
        mode: e === 0 ? 'PRODUCTION' : 'STAGING',
        cluster: e === 0 ? 'production-cluster' : 'staging-cluster',
        variables: [
          { key: 'ENV_NAME', value: `env-${pad(e, 2)}` },
          { key: 'ENV_REGION', value: 'eu-west-3' },
        ],
        stages: STAGES.map((st) => ({ name: st.name, description: st.description })),
        services,
      });
    }
    projects.push({
      name: `project-${pad(p, 2)}`,
      description: `Benchmark project ${p}`,
      variables: [
        { key: 'LOG_LEVEL', value: 'info' },
        { key: 'TEAM', value: `team-${p}` },
        { key: 'PROJECT_SECRET', secretEnv: 'BENCH_PROJECT_SECRET' },
      ],
      environments,
    });
  }
  return { projects };
}

/** Service fields, shared by the manifest and the API bodies. */
export function applicationFields(name) {
  return {
    git_repository: { url: `https://github.com/driftless-bench/${name}.git`, branch: 'main' },
    dockerfile_path: 'Dockerfile',
    cpu: 250,
    memory: 256,
    min_running_instances: 1,
    max_running_instances: 2,
    ports: [{ name: 'http', internal_port: 8080, publicly_accessible: true }],
  };
}

export function containerFields(name) {
  return { registry: 'docker-hub', image_name: `driftless-bench/${name}`, tag: '1.0.0', cpu: 250, memory: 256 };
}

export function countResources(spec) {
  let projects = 0, environments = 0, services = 0, variables = 0, stages = 0;
  for (const p of spec.projects) {
    projects++;
    variables += p.variables.length;
    for (const e of p.environments) {
      environments++;
      variables += e.variables.length;
      stages += e.stages.length;
      for (const s of e.services) {
        services++;
        variables += s.variables.length;
      }
    }
  }
  return { projects, environments, services, variables, stages, total: projects + environments + services + variables + stages };
}

// ---------------------------------------------------------------------------------------------
// The manifest

function yamlString(s) {
  return JSON.stringify(s); // a JSON string is a valid YAML double-quoted scalar
}

function variablesYaml(vars, indent) {
  // One line per variable (flow mappings): a 1,000-service project must fit in one file, and a
  // manifest file may hold at most 1 MiB (src/manifest); a project cannot span files.
  const pad = ' '.repeat(indent);
  const out = [`${pad}variables:`];
  for (const v of vars) {
    if (v.secretEnv) out.push(`${pad}  - {key: ${v.key}, value: "\${env:${v.secretEnv}}", secret: true}`);
    else out.push(`${pad}  - {key: ${v.key}, value: ${yamlString(v.value)}}`);
  }
  return out;
}

function serviceYaml(s) {
  const out = [`          - type: ${s.kind}`, `            name: ${s.name}`];
  if (s.kind === 'application') {
    const f = applicationFields(s.name);
    const port = f.ports[0];
    out.push(
      `            git_repository: { url: ${f.git_repository.url}, branch: ${f.git_repository.branch} }`,
      `            dockerfile_path: ${f.dockerfile_path}`,
      `            cpu: ${f.cpu}`,
      `            memory: ${f.memory}`,
      `            min_running_instances: ${f.min_running_instances}`,
      `            max_running_instances: ${f.max_running_instances}`,
      `            ports: [{ name: ${port.name}, internal_port: ${port.internal_port}, publicly_accessible: ${port.publicly_accessible} }]`,
    );
  } else {
    const f = containerFields(s.name);
    out.push(
      `            registry: ${f.registry}`,
      `            image_name: ${f.image_name}`,
      `            tag: ${yamlString(f.tag)}`,
      `            cpu: ${f.cpu}`,
      `            memory: ${f.memory}`,
    );
  }
  out.push(...variablesYaml(s.variables, 12));
  return out;
}

/** The manifest of one project, as YAML text. */
export function projectYaml(p) {
  const out = ['# Generated by bench/lib/spec.mjs', 'version: 1', 'projects:', `  - name: ${p.name}`, `    description: ${yamlString(p.description)}`];
  out.push(...variablesYaml(p.variables, 4));
  out.push('    environments:');
  for (const e of p.environments) {
    out.push(`      - name: ${e.name}`, `        mode: ${e.mode}`, `        cluster: ${e.cluster}`);
    out.push(...variablesYaml(e.variables, 8));
    out.push('        deployment_stages:');
    for (const st of e.stages) {
      const members = e.services.filter((s) => s.stage === st.name).map((s) => s.name);
      out.push(`          - name: ${st.name}`, `            description: ${yamlString(st.description)}`, `            services: [${members.join(', ')}]`);
    }
    out.push('        services:');
    for (const s of e.services) out.push(...serviceYaml(s));
  }
  return out.join('\n') + '\n';
}

/** Writes one `<project>.yaml` per project into `dir` (created); returns the file paths. */
export function writeManifest(spec, dir) {
  mkdirSync(dir, { recursive: true });
  return spec.projects.map((p) => {
    const file = path.join(dir, `${p.name}.yaml`);
    writeFileSync(file, projectYaml(p));
    return file;
  });
}

/**
 * The same manifest as a plain object (what the loader returns after resolving `${env:}`), for
 * the pure-core benchmark, which measures graph + plan without YAML parsing. Secret values are
 * given in clear with `secret: true` (the graph wraps them).
 */
export function manifestObject(spec) {
  const vars = (list) =>
    list.map((v) => (v.secretEnv ? { key: v.key, value: SECRET_ENV[v.secretEnv], secret: true } : { key: v.key, value: v.value }));
  return {
    version: 1,
    projects: spec.projects.map((p) => ({
      name: p.name,
      description: p.description,
      variables: vars(p.variables),
      environments: p.environments.map((e) => ({
        name: e.name,
        mode: e.mode,
        cluster: e.cluster,
        variables: vars(e.variables),
        deployment_stages: e.stages.map((st) => ({
          name: st.name,
          description: st.description,
          services: e.services.filter((s) => s.stage === st.name).map((s) => s.name),
        })),
        services: e.services.map((s) => {
          const base = { type: s.kind, name: s.name };
          if (s.kind === 'application') {
            const f = applicationFields(s.name);
            Object.assign(base, { ...f, git_repository: { ...f.git_repository }, ports: f.ports.map((x) => ({ ...x })) });
          } else {
            Object.assign(base, containerFields(s.name));
          }
          base.variables = vars(s.variables);
          return base;
        }),
      })),
    })),
  };
}

/** The first `projects` projects and, of each, the first `environments` environments. */
export function subsetSpec(spec, { projects, environments }) {
  return {
    projects: spec.projects.slice(0, projects).map((p) => ({ ...p, environments: p.environments.slice(0, environments) })),
  };
}
