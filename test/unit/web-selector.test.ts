/** `waitFor` selectors checked without a browser (issue 28): what a browser takes passes, the rest is named. */
import { describe, expect, it } from 'vitest';
import { cssSelectorProblem } from '../../src/web/selector.js';
import { waitForInput } from '../../src/operations/inputs.js';

describe('cssSelectorProblem', () => {
  it.each(['#content', 'article .body > p', 'div.a, span.b', '[data-ready="1"]', 'ul li:nth-child(2n+1)', ':is(main, article) h1', 'article:has(> img)', '#a\\:b', '.é', '*', 'svg|rect', '#main:visible', 'div:has-text("Loaded 12 items")', 'main:not(.x .y)', 'a[href^="#1"]'])(
    '%s is valid',
    (selector) => expect(cssSelectorProblem(selector)).toBeUndefined(),
  );

  it.each(['[[', '###', 'a,,b', 'div)', 'a{}', 'div[', ':::', 'div >', '> div', 'a >> b', '<script>', 'a || b', '12abc', '#123', 'div.5', 'p .-1x'])('%s is refused', (selector) => {
    expect(cssSelectorProblem(selector)).toEqual(expect.any(String));
  });
});

describe('the waitFor input', () => {
  it('takes milliseconds (a number or digits) and selectors, and refuses a bad selector naming it', () => {
    expect(waitForInput.parse(500)).toBe(500);
    expect(waitForInput.parse('1500')).toBe('1500');
    expect(waitForInput.parse(' #content ')).toBe('#content');
    const bad = waitForInput.safeParse('div >>> [[');
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('is not a valid CSS selector');
  });
});
