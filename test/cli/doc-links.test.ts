/**
 * Every relative link and anchor of the README and of docs/ resolves: the page or file exists in the
 * repository and the anchor names one of its headings as GitHub renders it. Pages move and headings
 * get reworded; a dead link from the front page is the first thing a new user meets.
 */
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, slugOf } from '../support/doc-links.js';
import { docPages, repoRoot } from '../support/docs.js';

describe('links of README.md and docs/*.md', () => {
  const pages = docPages();

  it('finds the README and the docs pages, and links between them', () => {
    expect(pages.map((p) => p.file)).toEqual(expect.arrayContaining(['README.md', 'docs/commands.md', 'docs/manifest.md', 'docs/manifest-reference.md']));
    expect(pages.find((p) => p.file === 'README.md')!.text).toMatch(/\]\(docs\/[a-z-]+\.md\)/);
  });

  it.each(pages.map((p) => p.file))('every relative link and anchor of %s resolves', (file) => {
    const page = pages.find((p) => p.file === file)!;
    expect(brokenLinks(repoRoot, page.file, page.text)).toEqual([]);
  });

  it('the README is the front page: at most 250 lines', () => {
    expect(pages.find((p) => p.file === 'README.md')!.text.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it("computes anchors as GitHub does, and reports a missing page or heading (so the checks above can fail)", () => {
    expect(slugOf('Partial plans: `--target ADDRESS...`')).toBe('partial-plans---target-address');
    expect(slugOf('Why is it slow or failing? `DRIFTLESS_LOG_LEVEL=debug`')).toBe('why-is-it-slow-or-failing-driftless_log_leveldebug');
    expect([...anchorsOf('# A\n\n## Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n')]).toEqual(['a', 'notes', 'notes-1']);
    const page = '# Page\n\n## Real heading\n\n[ok](#real-heading) [bad anchor](#no-such-heading) [missing](docs/nowhere.md) [out](../../etc/passwd) [web](https://example.com/x#y) [anchor elsewhere](docs/commands.md#no-such-section)';
    const problems = brokenLinks(repoRoot, 'README.md', page);
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/#no-such-heading/);
    expect(problems.join('\n')).toMatch(/docs\/nowhere\.md does not exist/);
    expect(problems.join('\n')).toMatch(/leads out of the repository/);
    expect(problems.join('\n')).toMatch(/#no-such-section in docs\/commands\.md/);
  });
});
