// Types of run.mjs for the tests (the action runs the .mjs as it is, with no build step).
export const COMMANDS: string[];
export const FORMATS: Record<string, string[]>;
export const COMMENT_LIMIT: number;
export const STEP_SUMMARY_LIMIT: number;
export class InputError extends Error {}
export interface Inputs {
  command: string;
  manifests: string[];
  format: string;
  planFile: string;
  splitDir: string;
  driftFile: string;
  noSecretValues: string;
  maxWait: string;
  extraArgs: string[];
  project?: string;
  set?: string[];
  number?: string;
  prune?: string;
  keep?: string;
  event?: { action: string; number: string };
}
export interface Run {
  command: string;
  format: string;
  args: string[];
  stdoutFile: string;
  planFile: string;
  splitDir: string;
  driftFile: string;
  previewAction?: 'up' | 'down' | 'prune';
  previewNumber?: string;
}
export const PREVIEW_DOWN_ACTIONS: string[];
export function pullRequestEvent(env: Record<string, string | undefined>): { action: string; number: string } | undefined;
export function readInputs(env: Record<string, string | undefined>): Inputs;
export function planRun(inputs: Inputs): Run;
export function summaryLine(run: Run, result: { exitCode: number; text: string; drift?: { in_sync: boolean; summary?: { drifted?: number } } }): string;
export function fenced(text: string, info?: string): string;
export function capBytes(markdown: string, limit: number, note: string): string;
export function listParts(dir: string): string[];
export function failureMarkdown(f: { command: string; exitCode: number; stdout: string; stderr: string; runUrl: string }): string;
export function main(env?: Record<string, string | undefined>, out?: { write(s: string): unknown }): Promise<Record<string, string>>;
export function jobSummary(args: { run: Run; summary: string; failed: boolean; human: string; parts: string[]; result: { code: number; stdout: string; stderr: string }; runUrl: string }): string;
export function cacheDirOf(env: Record<string, string | undefined>): string;
