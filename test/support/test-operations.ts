/** Operations of the tests' own, to drive the gate and the surfaces; the product ships none of them. */
import { once, EventEmitter } from 'node:events';
import { z } from 'zod';
import { defineOperation } from '../../src/operations/define.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { GleanerError } from '../../src/errors.js';

export const postEcho = defineOperation({
  name: 'test_post_echo',
  title: 'Echo a body (test)',
  description: 'Returns its body; costs one credit.',
  http: { method: 'POST', path: '/v1/test/post-echo', aliases: ['/v1/test-alias/post-echo'] },
  input: z.object({ items: z.array(z.string().url()).min(1).max(3), note: z.string().max(10).optional() }),
  output: z.object({ items: z.array(z.string()), note: z.string().optional() }),
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  async run(input) {
    return input;
  },
});

/** A job whose steps the test releases one by one, so states can be observed without sleeping. */
export const gates = new EventEmitter();
export const slowJob = defineOperation({
  name: 'test_job',
  title: 'Stepwise job (test)',
  description: 'Runs three steps, each released by the test.',
  http: { method: 'POST', path: '/v1/test/job' },
  input: z.object({ steps: z.number().int().min(1).max(5).default(3), fail: z.boolean().default(false), extra: z.number().int().min(0).max(10).default(0) }),
  output: z.object({ steps: z.number().int() }),
  plan: 'Free',
  cost: { reserve: (input) => input.steps, settle: (input, result: { steps: number }) => result.steps + input.extra },
  kind: 'job',
  async run(input, ctx) {
    if (input.extra) await ctx.reserveCredits(input.extra);
    for (let step = 1; step <= input.steps; step++) {
      await once(gates, 'step');
      ctx.progress(step, input.steps, `step ${step}`);
    }
    if (input.fail) throw new GleanerError('UPSTREAM_ERROR', 'the test asked this job to fail');
    return { steps: input.steps };
  },
});

export const TEST_OPERATIONS = [...OPERATIONS, postEcho, slowJob];
