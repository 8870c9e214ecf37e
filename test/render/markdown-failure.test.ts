import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { error, warning } from '../../src/diag/diagnostic.js';
import { renderFailureMarkdown } from '../../src/render/markdown-failure.js';

describe('failure markdown', () => {
  const evil = 'name <img src=x onerror=alert(1)> @admin [link](http://evil.example)';
  const diags = [
    error('schema.unknown-key', `unknown key in ${evil}`, {
      range: { file: 'm/main.yaml', start: { line: 12, col: 13 } },
      excerpt: '            dockerfile_pth: ```x```\n            ^~~~~~~~~~~~~~',
      detail: 'Did you mean `dockerfile_path`?\nAllowed: a, b',
      address: 'project.shop',
    }),
    warning('fingerprint.fallback', 'DRIFTLESS_FINGERPRINT_KEY is not set'),
  ];
  const md = renderFailureMarkdown(diags, { command: 'driftless plan' });
  const html = new MarkdownIt({ html: true }).render(md);

  it('says the run failed, with every diagnostic, its code and location', () => {
    expect(html).toMatch(/<h3>❌ driftless plan failed<\/h3>/);
    expect(html).toContain('1 error, 1 warning');
    expect(html).toContain('<code>schema.unknown-key</code>');
    expect(html).toContain('<code>m/main.yaml:12:13</code>');
    expect(html).toContain('<code>fingerprint.fallback</code>');
  });

  it('keeps the excerpt in a fence its backticks cannot close, and injects no HTML, link or mention from a name', () => {
    const tokens = new MarkdownIt({ html: true }).parse(md, {});
    const fence = tokens.find((t) => t.type === 'fence')!;
    expect(fence.content).toContain('dockerfile_pth: ```x```');
    expect(tokens.at(-1)!.type).not.toBe('fence');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<a ');
  });
});
