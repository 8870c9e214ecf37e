/**
 * The command table. Each command lives in its own module; add it here to expose it. Listed in
 * the order of the workflow (validate, plan, apply, drift...), which is the order of `--help`.
 */
import type { CliCommand } from '../command.js';
import { validateCommand } from './validate.js';
import { exportCommand } from './export.js';
import { driftCommand } from './drift.js';
import { graphCommand } from './graph.js';
import { demoCommand } from './demo.js';
import { planCommand } from './plan.js';
import { applyCommand } from './apply.js';
import { serveCommand } from './serve.js';
import { showCommand } from './show.js';
import { previewCommand } from './preview.js';

export const commands: CliCommand<any>[] = [validateCommand, planCommand, showCommand, applyCommand, driftCommand, previewCommand, exportCommand, graphCommand, serveCommand, demoCommand];
