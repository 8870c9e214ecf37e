/**
 * Creates an organization (see spec.mjs) inside a running emulator through its own API routes
 * (`app.inject`: the real routes, validation and rules, without sockets or injected latency), then
 * deploys every environment, so that the records are exactly what the API would hold and a
 * driftless plan of the matching manifest is a no-op.
 *
 * Secrets carry the fingerprint marker driftless writes with them (src/plan/fingerprint.ts), keyed
 * with the benchmark's DRIFTLESS_FINGERPRINT_KEY, exactly as `driftless apply` would leave them.
 */
import { applicationFields, containerFields, SECRET_ENV } from './spec.mjs';
import { dist } from './paths.mjs';

const { fingerprint, withFingerprintMarker } = await dist('plan/fingerprint.js');

/** Runs `fn` over `items`, at most `limit` at once. */
export async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function injector(app, token) {
  return async function call(method, url, payload) {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Token ${token}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`populate: ${method} ${url} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.body ? JSON.parse(res.body) : undefined;
  };
}

function variableBody(v, scope, parentId, fingerprintKey) {
  if (v.secretEnv) {
    const value = SECRET_ENV[v.secretEnv];
    return {
      key: v.key,
      value,
      is_secret: true,
      variable_scope: scope,
      variable_parent_id: parentId,
      description: withFingerprintMarker(null, { value: fingerprint(value, fingerprintKey) }),
    };
  }
  return { key: v.key, value: v.value, is_secret: false, variable_scope: scope, variable_parent_id: parentId };
}

/**
 * Populates `emu` (a RunningEmulator of this process) with `spec`. Returns counts and timings.
 * `deploy: false` leaves the services never deployed.
 */
export async function populate(emu, spec, { fingerprintKey, deploy = true, concurrency = 64 } = {}) {
  const started = Date.now();
  const call = injector(emu.app, emu.tokens.ADMIN);
  const org = await call('GET', '/organization');
  const orgId = (org.results?.[0] ?? org).id;
  const clusters = (await call('GET', `/organization/${orgId}/cluster`)).results;
  const clusterId = (name) => {
    const c = clusters.find((x) => x.name === name);
    if (!c) throw new Error(`populate: no cluster named ${name}`);
    return c.id;
  };
  const registries = (await call('GET', `/organization/${orgId}/containerRegistry`)).results;
  const registryId = (name) => {
    const r = registries.find((x) => x.name === name);
    if (!r) throw new Error(`populate: no container registry named ${name}`);
    return r.id;
  };
  let requests = 3;
  const counted = async (...args) => {
    requests++;
    return call(...args);
  };

  const envIds = [];
  for (const p of spec.projects) {
    const project = await counted('POST', `/organization/${orgId}/project`, { name: p.name, description: p.description });
    await mapLimit(p.variables, concurrency, (v) => counted('POST', '/variable', variableBody(v, 'PROJECT', project.id, fingerprintKey)));
    await mapLimit(p.environments, 8, async (e) => {
      const env = await counted('POST', `/project/${project.id}/environment`, { name: e.name, mode: e.mode, cluster_id: clusterId(e.cluster) });
      envIds.push(env.id);
      await mapLimit(e.variables, concurrency, (v) => counted('POST', '/variable', variableBody(v, 'ENVIRONMENT', env.id, fingerprintKey)));
      // The API gives every environment a DEFAULT stage (services land there); the manifest's
      // stages are created after it and every service is moved into its own.
      const stageIds = {};
      for (const st of e.stages) stageIds[st.name] = (await counted('POST', `/environment/${env.id}/deploymentStage`, { name: st.name, description: st.description })).id;
      await mapLimit(e.services, concurrency, async (s) => {
        let svc;
        if (s.kind === 'application') {
          const f = applicationFields(s.name);
          svc = await counted('POST', `/environment/${env.id}/application`, {
            name: s.name,
            git_repository: { ...f.git_repository, provider: 'GITHUB' },
            build_mode: 'DOCKER',
            dockerfile_path: f.dockerfile_path,
            cpu: f.cpu,
            memory: f.memory,
            min_running_instances: f.min_running_instances,
            max_running_instances: f.max_running_instances,
            ports: f.ports,
            healthchecks: {},
          });
        } else {
          const f = containerFields(s.name);
          svc = await counted('POST', `/environment/${env.id}/container`, {
            name: s.name,
            registry_id: registryId(f.registry),
            image_name: f.image_name,
            tag: f.tag,
            cpu: f.cpu,
            memory: f.memory,
            healthchecks: {},
          });
        }
        await counted('PUT', `/deploymentStage/${stageIds[s.stage]}/service/${svc.id}`, {});
        const scope = s.kind.toUpperCase();
        for (const v of s.variables) await counted('POST', '/variable', variableBody(v, scope, svc.id, fingerprintKey));
      });
    });
  }
  const createdMs = Date.now() - started;

  if (deploy) {
    const saved = emu.ctx.options.deployDurationMs;
    emu.ctx.options.deployDurationMs = 0;
    try {
      for (const id of envIds) await counted('POST', `/environment/${id}/deploy`, {});
      await waitAllDeployed(emu);
    } finally {
      emu.ctx.options.deployDurationMs = saved;
    }
  }
  return { requests, createdMs, totalMs: Date.now() - started, organizationId: orgId };
}

/** Waits until no operation is running and every service is DEPLOYED. */
export async function waitAllDeployed(emu, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = Object.values(emu.state.serviceStatuses);
    const pending = statuses.filter((s) => s.state !== 'DEPLOYED').length;
    const ops = Object.keys(emu.state.operations).length;
    if (pending === 0 && ops === 0) return;
    if (Date.now() > deadline) throw new Error(`populate: ${pending} services still not deployed after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
