import { describe, expect, it } from 'vitest';
import { error, warning } from '../../src/diag/diagnostic.js';
import { makeExcerpt } from '../../src/diag/excerpt.js';
import { createPalette, escapeGithubData, escapeGithubProperty, renderDiagnostic, renderDiagnosticGithub, shouldUseColor } from '../../src/diag/render.js';

const d = error('schema.unknown-key', 'unknown key `dockerfile_pth` in application `api`', {
  detail: 'Did you mean `dockerfile_path`?',
  range: { file: 'm.yaml', start: { line: 12, col: 13 }, end: { line: 12, col: 27 } },
  excerpt: '            dockerfile_pth: Dockerfile\n            ^~~~~~~~~~~~~~',
  address: 'project.shop/environment.prod/application.api',
});

describe('human rendering', () => {
  it('shows place, excerpt, hint and address without colour codes when colour is off', () => {
    expect(renderDiagnostic(d, createPalette(false))).toBe(
      [
        'error[schema.unknown-key]: unknown key `dockerfile_pth` in application `api`',
        '  --> m.yaml:12:13',
        '   |',
        '12 |             dockerfile_pth: Dockerfile',
        '   |             ^~~~~~~~~~~~~~',
        '   = Did you mean `dockerfile_path`?',
        '   = at project.shop/environment.prod/application.api',
      ].join('\n'),
    );
  });

  it('neutralises terminal escape sequences coming from user input', () => {
    const evil = error('x', 'name `\u001b[2J\u001b]0;pwned\u0007`', { detail: 'line1\nline2\u001b[31m' });
    const out = renderDiagnostic(evil);
    expect(out).not.toMatch(/[\u001b\u0007]/);
    expect(out).toContain('= line1\n  = line2?[31m');
  });

  it('decides colour from TTY, NO_COLOR, TERM and --no-color', () => {
    expect(shouldUseColor({ isTTY: true, env: {} })).toBe(true);
    expect(shouldUseColor({ isTTY: false, env: {} })).toBe(false);
    expect(shouldUseColor({ isTTY: true, env: { NO_COLOR: '1' } })).toBe(false);
    expect(shouldUseColor({ isTTY: true, env: { TERM: 'dumb' } })).toBe(false);
    expect(shouldUseColor({ isTTY: true, env: {}, noColor: true })).toBe(false);
    expect(shouldUseColor({ isTTY: false, env: { FORCE_COLOR: '1' } })).toBe(true);
  });
});

describe('GitHub annotations', () => {
  it('renders file, line, column and end, with the detail on a second line', () => {
    expect(renderDiagnosticGithub(d)).toBe(
      '::error file=m.yaml,line=12,col=13,endLine=12,endColumn=27,title=schema.unknown-key::unknown key `dockerfile_pth` in application `api`%0ADid you mean `dockerfile_path`?',
    );
  });

  it('maps severities to workflow commands and works without a place', () => {
    expect(renderDiagnosticGithub(warning('w', 'careful'))).toBe('::warning title=w::careful');
    expect(renderDiagnosticGithub({ severity: 'info', code: 'i', summary: 'note' })).toBe('::notice title=i::note');
  });

  it('escapes so that user text cannot end the command or start another', () => {
    expect(escapeGithubData('50%\r\n::error::x')).toBe('50%25%0D%0A::error::x');
    expect(escapeGithubProperty('a,b:c%')).toBe('a%2Cb%3Ac%25');
    const forged = error('c', 'name `x`\n::error file=evil::forged', { range: { file: 'dir,x:y/m.yaml', start: { line: 1, col: 1 } } });
    const out = renderDiagnosticGithub(forged);
    expect(out.split('\n')).toHaveLength(1);
    expect(out).toContain('file=dir%2Cx%3Ay/m.yaml,');
  });
});

describe('excerpts', () => {
  it('underlines the range and masks secret spans, moving the caret accordingly', () => {
    const text = 'a: 1\n  password: hunter2  # x\n';
    expect(makeExcerpt(text, { file: 'f', start: { line: 2, col: 3 }, end: { line: 2, col: 11 } })).toBe('  password: hunter2  # x\n  ^~~~~~~~');
    const masked = makeExcerpt(text, { file: 'f', start: { line: 2, col: 22 } }, [{ start: { line: 2, col: 13 }, end: { line: 2, col: 20 } }]);
    const [src, caret] = masked!.split('\n');
    expect(src).toBe('  password: (sensitive value)  # x');
    expect(caret!.indexOf('^')).toBe(src!.indexOf('#'));
  });

  it('keeps the caret visible on very long lines', () => {
    const line = 'k: ' + 'x'.repeat(500) + 'TARGET' + 'y'.repeat(500);
    const ex = makeExcerpt(line, { file: 'f', start: { line: 1, col: 504 }, end: { line: 1, col: 510 } })!;
    const [src, caret] = ex.split('\n');
    expect(src!.length).toBeLessThan(170);
    expect(src!.slice(caret!.indexOf('^'), caret!.indexOf('^') + 6)).toBe('TARGET');
  });
});
