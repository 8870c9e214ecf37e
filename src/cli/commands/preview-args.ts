/**
 * The arguments of `driftless preview <action>`, in a module of their own: the command
 * (./preview.ts) loads each action's module (./preview-up.ts...), and those name these arguments;
 * were they in ./preview.ts, the two would import each other (an import cycle).
 */
import type { ConnectionArgs } from '../shared-options.js';
import type { PreviewAssignment } from '../../manifest/previews.js';

export const PREVIEW_ACTIONS = ['up', 'down', 'list', 'prune'] as const;

export type PreviewAction = (typeof PREVIEW_ACTIONS)[number];

export interface PreviewArgs extends ConnectionArgs {
  action: PreviewAction;
  paths?: string[];
  project?: string;
  number?: number;
  set?: PreviewAssignment[];
  format?: 'human' | 'json';
  /** Milliseconds. */
  olderThan?: number;
  keep?: number[];
  out?: string;
  /** up: as apply's, for this preview only (a changed cluster replaces it; a database it loses). */
  allowReplace?: boolean;
  allowDataLoss?: boolean;
  /** Milliseconds. */
  timeout?: number;
  pollInterval?: number;
  color?: boolean;
}
