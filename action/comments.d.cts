// Types of comments.cjs for the tests (github-script loads the .cjs as it is).
export interface Comment {
  id: number;
  body?: string;
  html_url?: string;
  user?: { login: string } | null;
}
export type CommentOp = { op: 'create'; index: number; body: string } | { op: 'update'; index: number; id: number; body: string } | { op: 'delete'; id: number };
export const COMMENT_LIMIT: number;
export function commentKey(raw: string | undefined): string;
export function planCommentSync(existing: Comment[], parts: string[], key: string): CommentOp[];
export function readParts(dir: string): string[];
export function syncPlanComments(args: { github: any; context: any; core: any; dir: string; key: string; author: string }): Promise<CommentOp[]>;
export type PreviewCommentOp = { op: 'create'; body: string } | { op: 'update'; id: number; body: string } | { op: 'delete'; id: number };
export function previewCommentBody(args: { key: string; action: 'up' | 'down'; result?: any; previous?: string; sha?: string; failed?: string; runUrl?: string }): string;
export function previewCommentOp(existing: Comment[], key: string, body: string, action: 'up' | 'down'): PreviewCommentOp[];
export function syncPreviewComment(args: { github: any; context: any; core: any; file: string; action: 'up' | 'down'; exitCode: string; key: string; author: string; sha?: string; runUrl?: string }): Promise<PreviewCommentOp[]>;
