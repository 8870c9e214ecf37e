/**
 * The articles and plurals of generated messages (issue 19: "A environment", "1 resources").
 */
import { describe, expect, it } from 'vitest';
import { article, plural, withArticle } from '../../src/render/words.js';

describe('article', () => {
  it.each([
    ['environment', 'an'],
    ['application', 'an'],
    ['alert_rule', 'an'],
    ['annotations_group', 'an'],
    ['EMAIL', 'an'],
    ['HTTP', 'an'],
    ['8', 'an'],
    ['18', 'an'],
    ['11', 'an'],
    ['update', 'an'],
    ['undeclared', 'an'],
    ['hour', 'an'],
    ['project', 'a'],
    ['database', 'a'],
    ['container', 'a'],
    ['SLACK', 'a'],
    ['TCP', 'a'],
    ['unit', 'a'],
    ['user', 'a'],
    ['uuid', 'a'],
    ['one', 'a'],
    ['12', 'a'],
    ['80', 'an'],
    ['100', 'a'],
  ])('%s takes "%s"', (word, expected) => {
    expect(article(word)).toBe(expected);
  });

  it('writes the word with it', () => {
    expect(withArticle('environment')).toBe('an environment');
    expect(withArticle('template')).toBe('a template');
  });
});

describe('plural', () => {
  it('is singular for one only', () => {
    expect(plural(0, 'resource')).toBe('0 resources');
    expect(plural(1, 'resource')).toBe('1 resource');
    expect(plural(2, 'resource')).toBe('2 resources');
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });
});
