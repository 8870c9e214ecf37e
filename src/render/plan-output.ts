/**
 * The plan as `plan` prints it on stdout, in one of its formats: the single function both `plan`
 * and `show PLANFILE` call, so that a saved plan is shown byte for byte as it was planned.
 */
import type { Plan } from '../plan/types.js';
import { renderPlanHuman } from './human.js';
import { renderPlanJson, type JsonPlanMeta } from './json.js';
import { renderPlanMarkdown } from './markdown.js';
import type { Palette } from './palette.js';

export type PlanOutputFormat = 'human' | 'json' | 'markdown';

export function renderPlanOutput(plan: Plan, format: PlanOutputFormat, meta: JsonPlanMeta, palette: Palette): string {
  if (format === 'json') return renderPlanJson(plan, meta);
  if (format === 'markdown') return renderPlanMarkdown(plan);
  return renderPlanHuman(plan, { palette });
}
