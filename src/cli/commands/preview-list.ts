/**
 * `driftless preview list PATH [--project P] [--format json]`: every preview environment of the
 * projects that declare previews: number, name, age, last deploy, status and URLs. Requests: the
 * organization and its projects (2, once), each project's environments (1), and per preview its status
 * and links (2 or 3).
 */
import type { CliIO } from '../io.js';
import { EXIT } from '../io.js';
import { palettesOf } from '../config.js';
import { livePreviews, previewStatus, previewUrls, projectsNamed, type PreviewUrl } from '../../preview/live.js';
import { formatAge } from '../../preview/select.js';
import { escapeControl } from '../../render/escape.js';
import { withPreviewSession } from './preview-session.js';
import type { PreviewArgs } from './preview-args.js';

interface PreviewListing {
  project: string;
  number: number;
  name: string;
  created_at: string;
  age_seconds: number;
  last_deployment_date: string | null;
  status: string;
  urls: PreviewUrl[];
}

export async function runPreviewList(args: PreviewArgs, io: CliIO): Promise<number> {
  const { out: palette } = palettesOf(io, args);
  const now = Date.now();
  const rows: PreviewListing[] = [];
  const read = await withPreviewSession(args, io, { doing: () => 'Listing the previews' }, async ({ declarations, api }) => {
    const projects = await projectsNamed(api, declarations.map((d) => d.project));
    for (const decl of declarations) {
      const project = projects.get(decl.project);
      if (!project) continue;
      for (const p of await livePreviews(api, project.id, decl.previews.name)) {
        const [status, urls] = await Promise.all([previewStatus(api, p.id), previewUrls(api, p.id)]);
        rows.push({ project: decl.project, number: p.number, name: p.name, created_at: p.created_at, age_seconds: Math.max(0, Math.round((now - Date.parse(p.created_at)) / 1000)), last_deployment_date: status.last_deployment_date, status: status.state, urls });
      }
    }
    return EXIT.ok;
  });
  if (read !== EXIT.ok) return read;
  if (args.format === 'json') {
    io.stdout.write(`${JSON.stringify({ previews: rows })}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout.write('No preview environment.\n');
    return EXIT.ok;
  }
  const table = [['NUMBER', 'NAME', 'AGE', 'LAST DEPLOY', 'STATUS', 'URLS']].concat(
    rows.map((r) => [String(r.number), r.name, formatAge(r.age_seconds * 1000), r.last_deployment_date ? `${formatAge(now - Date.parse(r.last_deployment_date))} ago` : 'never', r.status, r.urls.map((u) => `${u.service} ${u.url}`).join(', ') || '-'].map(escapeControl)),
  );
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  io.stdout.write(table.map((row, i) => { const line = row.map((c, j) => (j === row.length - 1 ? c : c.padEnd(widths[j]!))).join('  '); return i === 0 ? palette.bold(line) : line; }).join('\n') + '\n');
  return EXIT.ok;
}
