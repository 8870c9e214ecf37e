/**
 * `driftless graph`: the plan's dependency graph as Graphviz DOT or Mermaid (which GitHub renders
 * in comments): one box per environment holding its deployment stages (chained in deployment
 * order) and services (attached to their stage), database clones, and each node labelled with its
 * planned action. Also the deploy-order diagram the markdown plan embeds.
 *
 * Node ids are generated (n0, n1...): names appear only inside escaped labels.
 */
import type { Address, DesiredGraph, DesiredResource } from '../model/resource.js';
import { isServiceKind, parseAddress } from '../model/resource.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { labelOf } from './describe.js';
import { escapeControl, escapeDot, escapeMermaid } from './escape.js';

interface EnvBox {
  env: DesiredResource;
  stages: DesiredResource[];
  services: DesiredResource[];
}

interface GraphModel {
  boxes: EnvBox[];
  edges: Array<{ from: Address; to: Address; kind: 'order' | 'member' | 'clone' }>;
  ids: Map<Address, string>;
  label(address: Address): string;
}

function actionText(c: ResourceChange | undefined): string {
  if (!c) return '';
  const l = labelOf(c);
  const parts = l === 'no-op' ? [] : [l === 'deploy' ? 'deploy' : l];
  if (c.deploy && l !== 'deploy') parts.push('deploy');
  if (c.status === 'blocked') parts.push('BLOCKED');
  return parts.join(' + ');
}

function model(graph: DesiredGraph, plan?: Plan): GraphModel {
  const changes = new Map<Address, ResourceChange>();
  for (const c of plan?.changes ?? []) changes.set(c.address, c);
  const boxes = new Map<Address, EnvBox>();
  const ids = new Map<Address, string>();
  const id = (a: Address) => {
    let v = ids.get(a);
    if (v === undefined) {
      v = `n${ids.size}`;
      ids.set(a, v);
    }
    return v;
  };
  for (const address of graph.order) {
    const r = graph.resources.get(address)!;
    if (r.kind === 'environment') {
      boxes.set(address, { env: r, stages: [], services: [] });
      id(address);
    } else if (r.parent && boxes.has(r.parent) && (r.kind === 'deployment_stage' || isServiceKind(r.kind))) {
      const box = boxes.get(r.parent)!;
      (r.kind === 'deployment_stage' ? box.stages : box.services).push(r);
      id(address);
    }
  }
  const edges: GraphModel['edges'] = [];
  for (const box of boxes.values()) {
    const staged = new Set<string>();
    const byName = new Map(box.services.map((s) => [s.name, s]));
    let prev: DesiredResource | undefined;
    for (const st of box.stages) {
      if (prev) edges.push({ from: prev.address, to: st.address, kind: 'order' });
      prev = st;
      for (const name of (st.attrs.services as string[] | undefined) ?? []) {
        const svc = byName.get(name);
        if (svc) {
          edges.push({ from: st.address, to: svc.address, kind: 'member' });
          staged.add(svc.address);
        }
      }
    }
    for (const s of box.services) {
      if (!staged.has(s.address)) edges.push({ from: box.env.address, to: s.address, kind: 'member' });
      if (s.cloneFrom && ids.has(s.cloneFrom)) edges.push({ from: s.cloneFrom, to: s.address, kind: 'clone' });
    }
  }
  const label = (address: Address): string => {
    const r = graph.resources.get(address)!;
    const action = actionText(changes.get(address));
    const kind = r.kind === 'deployment_stage' ? 'stage' : r.kind;
    // The name is escaped here so that only the renderer's own line break separates name and action.
    const name = escapeControl(r.name);
    return action ? `${kind} ${name}\n${action}` : `${kind} ${name}`;
  };
  return { boxes: [...boxes.values()], edges, ids, label };
}

/** A DOT label: each line escaped, joined by DOT's own line break. */
function dotLabel(s: string): string {
  return s.split('\n').map(escapeDot).join('\\n');
}

export function renderGraphDot(graph: DesiredGraph, plan?: Plan): string {
  const m = model(graph, plan);
  const out = ['digraph driftless {', '  rankdir=LR;', '  node [shape=box, fontname="Helvetica"];'];
  m.boxes.forEach((box, i) => {
    const env = box.env;
    out.push(`  subgraph cluster_${i} {`);
    out.push(`    label="${escapeDot(scopeName(env))}";`);
    out.push(`    ${m.ids.get(env.address)} [label="${dotLabel(m.label(env.address))}", shape=folder];`);
    for (const st of box.stages) out.push(`    ${m.ids.get(st.address)} [label="${dotLabel(m.label(st.address))}", shape=cds];`);
    for (const s of box.services) out.push(`    ${m.ids.get(s.address)} [label="${dotLabel(m.label(s.address))}"];`);
    out.push('  }');
  });
  for (const e of m.edges) {
    const style = e.kind === 'order' ? ' [label="then"]' : e.kind === 'clone' ? ' [label="clone", style=dashed]' : ' [style=dotted]';
    out.push(`  ${m.ids.get(e.from)} -> ${m.ids.get(e.to)}${style};`);
  }
  out.push('}');
  return out.join('\n') + '\n';
}

/** `project / environment` of an environment resource, from its address. */
function scopeName(env: DesiredResource): string {
  return parseAddress(env.address)
    .map((seg) => seg.name ?? seg.kind)
    .join(' / ');
}

function mermaidLabel(s: string): string {
  return s
    .split('\n')
    .map(escapeMermaid)
    .join('<br/>');
}

export function renderGraphMermaid(graph: DesiredGraph, plan?: Plan): string {
  const m = model(graph, plan);
  const out = ['flowchart LR'];
  m.boxes.forEach((box, i) => {
    const env = box.env;
    out.push(`  subgraph env${i}["${mermaidLabel(escapeControl(`${scopeName(env)}`))}"]`);
    out.push(`    ${m.ids.get(env.address)}[["${mermaidLabel(m.label(env.address))}"]]`);
    for (const st of box.stages) out.push(`    ${m.ids.get(st.address)}{{"${mermaidLabel(m.label(st.address))}"}}`);
    for (const s of box.services) out.push(`    ${m.ids.get(s.address)}["${mermaidLabel(m.label(s.address))}"]`);
    out.push('  end');
  });
  for (const e of m.edges) {
    const arrow = e.kind === 'order' ? ' -->|then| ' : e.kind === 'clone' ? ' -.->|clone| ' : ' -.- ';
    out.push(`  ${m.ids.get(e.from)}${arrow}${m.ids.get(e.to)}`);
  }
  return out.join('\n') + '\n';
}

/** The deploy order of a plan: per environment, one node per stage listing its services, chained. */
export function renderDeployMermaid(plan: Plan): string {
  const out = ['flowchart LR'];
  let n = 0;
  const nameOf = (a: Address) => parseAddress(a).pop()?.name ?? a;
  plan.deploy_order.forEach((group, i) => {
    const env = escapeControl(
      parseAddress(group.environment)
        .map((seg) => seg.name ?? seg.kind)
        .join(' / '),
    );
    out.push(`  subgraph d${i}["${mermaidLabel(env)}"]`);
    let prev: string | undefined;
    for (const st of group.stages) {
      const id = `s${n++}`;
      const title = st.stage === null ? 'default stage' : `stage ${st.stage}`;
      out.push(`    ${id}["${mermaidLabel([title, ...st.services.map((a) => escapeControl(nameOf(a)))].join('\n'))}"]`);
      if (prev) out.push(`    ${prev} --> ${id}`);
      prev = id;
    }
    out.push('  end');
  });
  return out.join('\n') + '\n';
}
