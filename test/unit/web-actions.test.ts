/** The action strings of web_scrape (web/render/actions.ts): what each parses to, and what is refused with its index. */
import { describe, expect, it } from 'vitest';
import { actionsProblem, parseAction } from '../../src/web/render/actions.js';

describe('parseAction', () => {
  it.each([
    ['click:#more', { type: 'click', selector: '#more' }],
    ['click: button.load-more ', { type: 'click', selector: 'button.load-more' }],
    ['type:#q=lighthouse keepers', { type: 'type', selector: '#q', text: 'lighthouse keepers' }],
    // The first `=` outside brackets and quotes ends the selector; the text keeps its own `=`.
    ['type:input[name=q]=a=b', { type: 'type', selector: 'input[name=q]', text: 'a=b' }],
    ['type:input[value="x=y"]=', { type: 'type', selector: 'input[value="x=y"]', text: '' }],
    ['press:Enter', { type: 'press', key: 'Enter' }],
    ['press:Control+a', { type: 'press', key: 'Control+a' }],
    ['press:/', { type: 'press', key: '/' }],
    ['scroll', { type: 'scroll', direction: 'down' }],
    ['scroll:up', { type: 'scroll', direction: 'up' }],
    ['scroll:down:1500', { type: 'scroll', direction: 'down', pixels: 1500 }],
    ['scroll:bottom', { type: 'scroll', direction: 'bottom' }],
    ['wait:250', { type: 'wait', milliseconds: 250 }],
    ['wait:#late', { type: 'wait', selector: '#late' }],
    ['CLICK:#more', { type: 'click', selector: '#more' }],
  ])('%s', (text, action) => {
    expect(parseAction(text)).toEqual(action);
  });

  it.each([
    ['hover:#x', /"hover" is not an action/],
    ['click:', /selector is missing/],
    ['click:div >', /not a valid CSS selector/],
    ['type:#q', /type:<css>=<text>/],
    ['type:[=x', /type:<css>=<text>/],
    ['press:Enter now', /is not a key/],
    ['press:', /is not a key/],
    ['scroll:left', /scroll takes/],
    ['scroll:bottom:100', /pixels/],
    ['scroll:down:0', /pixels/],
    ['scroll:down:1:2', /scroll takes/],
    ['wait:0', /1 to 15000/],
    ['wait:15001', /1 to 15000/],
    ['wait:#123', /not a valid CSS selector/],
  ])('%s is refused', (text, problem) => {
    const parsed = parseAction(text);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
  });
});

describe('actionsProblem', () => {
  it('names the index of the first bad action', () => {
    expect(actionsProblem(['click:#a', 'scroll', 'jump'])).toMatch(/^actions\[2\]: "jump" is not an action/);
  });
  it('bounds the waits together and each action\'s length', () => {
    expect(actionsProblem(['wait:8000', 'wait:7000'])).toBeUndefined();
    expect(actionsProblem(['wait:8000', 'wait:7001'])).toMatch(/add up to 15001 ms/);
    expect(actionsProblem([`click:#${'a'.repeat(1000)}`])).toMatch(/^actions\[0\]: at most 1000 characters/);
  });
});
