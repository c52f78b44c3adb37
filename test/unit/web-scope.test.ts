/** Path globs, host scope and map relevance (web/scope.ts, web/relevance.ts). */
import { describe, expect, it } from 'vitest';
import { compilePathPattern, pathPatternProblem, Scope } from '../../src/web/scope.js';
import { byRelevance } from '../../src/web/relevance.js';

describe('path globs', () => {
  it('`*` stays within a segment, `**` crosses segments, a trailing /** also takes the bare path', () => {
    const one = compilePathPattern('/blog/*');
    expect(one('/blog/post')).toBe(true);
    expect(one('/blog/2024/post')).toBe(false);
    const deep = compilePathPattern('/blog/**');
    expect(deep('/blog/2024/post')).toBe(true);
    expect(deep('/blog')).toBe(true);
    expect(deep('/blogger')).toBe(false);
    const middle = compilePathPattern('/docs/*/intro');
    expect(middle('/docs/v2/intro')).toBe(true);
    expect(middle('/docs/v2/x/intro')).toBe(false);
    expect(compilePathPattern('/**.html')('/a/b/c.html')).toBe(true);
    expect(compilePathPattern('/page/1*')('/page/17')).toBe(true);
    expect(compilePathPattern('/page/1*')('/page/27')).toBe(false);
  });

  it('refuses patterns that are not paths', () => {
    expect(pathPatternProblem('blog/**')).toMatch(/start with "\/"/);
    expect(pathPatternProblem('/a?b')).toMatch(/"\?"/);
    expect(pathPatternProblem('/a***')).toMatch(/more than two/);
    expect(pathPatternProblem('/ok/**')).toBeNull();
    expect(() => compilePathPattern('nope')).toThrow();
  });

  it('matches a pattern made to backtrack in time linear in the path', () => {
    const evil = compilePathPattern(`/${'**a'.repeat(60)}b`);
    const path = `/${'a'.repeat(5000)}`;
    expect(evil(path)).toBe(false);
  });
});

describe('Scope', () => {
  it('exclude wins over include; hosts by option', () => {
    const scope = new Scope('site.test', { includePaths: ['/blog/**'], excludePaths: ['/blog/drafts/**'] });
    expect(scope.pathWanted('http://site.test/blog/a')).toBe(true);
    expect(scope.pathWanted('http://site.test/blog/drafts/a')).toBe(false);
    expect(scope.pathWanted('http://site.test/shop')).toBe(false);
    expect(scope.own('http://blog.site.test/')).toBeNull();
    expect(new Scope('site.test', { allowSubdomains: true }).own('http://blog.site.test/')).toBe('http://blog.site.test/');
    expect(new Scope('site.test', { allowSubdomains: true }).own('http://othersite.test/')).toBeNull();
    expect(new Scope('site.test', { allowExternal: true }).own('http://other.example/')).toBe('http://other.example/');
  });
});

describe('byRelevance', () => {
  it('puts URLs whose path holds the term first, keeping the order among equals', () => {
    const urls = ['https://x.test/', 'https://x.test/about', 'https://x.test/blog/pricing-plans', 'https://x.test/pricing', 'https://x.test/team'];
    expect(byRelevance(urls, 'pricing')).toEqual([
      'https://x.test/blog/pricing-plans',
      'https://x.test/pricing',
      'https://x.test/',
      'https://x.test/about',
      'https://x.test/team',
    ]);
    expect(byRelevance(urls, 'pricing plans')[0]).toBe('https://x.test/blog/pricing-plans');
  });
});
