/**
 * Diagnostics: every user-facing problem is a value, never a thrown string or a printed line.
 * Core code returns them; renderers (src/diag/render.ts) turn them into text or CI annotations.
 */
export type Severity = 'error' | 'warning' | 'info';

/** 1-based line and column, as editors and GitHub annotations expect. */
export interface SourcePosition {
  line: number;
  col: number;
}

export interface SourceRange {
  file: string;
  start: SourcePosition;
  end?: SourcePosition;
}

export interface Diagnostic {
  severity: Severity;
  /** Stable machine-readable code, e.g. `schema.unknown-key`, `ref.unresolved`, `api.forbidden`. */
  code: string;
  /** One line: what is wrong. */
  summary: string;
  /** More detail: what is allowed, how to fix it ("did you mean ...?"). */
  detail?: string;
  /** The resource address the problem belongs to, when there is one. */
  address?: string;
  range?: SourceRange;
  /**
   * Other places the problem comes from, e.g. an object instantiated from a template: where the
   * template defines it and where the environment overrides it ("defined at ..., overridden at ...").
   */
  related?: RelatedLocation[];
  /** The offending source excerpt (a line or two), already extracted. Never holds secret values. */
  excerpt?: string;
}

/** A secondary location of a diagnostic: what happened there (`defined`, `overridden`, ...) and where. */
export interface RelatedLocation {
  message: string;
  range: SourceRange;
}

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

export function error(code: string, summary: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return { severity: 'error', code, summary, ...extra };
}

export function warning(code: string, summary: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return { severity: 'warning', code, summary, ...extra };
}
