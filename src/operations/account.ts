import { z } from 'zod';
import { defineOperation } from './define.js';
import { publicJob } from '../jobs/jobs.js';
import { accountReply, jobReply } from './outputs.js';
import { FREE_LOOKUP, JOB_FOLLOW_GROUPS, jobIdInput } from './lookups.js';

/** What `credits` shows on a plan without a monthly limit (Enterprise). */
export const UNLIMITED_CREDITS = 2 ** 31 - 1;

export const account = defineOperation({
  name: 'account',
  title: 'Account',
  description: 'The plan and credits left of the API key in use. Free.',
  http: { method: 'GET', path: '/v1/me' },
  input: z.object({}),
  output: accountReply,
  groups: ['account'],
  ...FREE_LOOKUP,
  async run(_input, ctx) {
    const balance = await ctx.services.accounts.balance(ctx.account);
    return {
      id: ctx.account.id,
      plan: ctx.account.plan,
      // The spec types credits as an integer: an unlimited plan shows the largest 32-bit one.
      credits: balance.remaining ?? UNLIMITED_CREDITS,
      unlimited: balance.remaining === null,
      monthlyCredits: balance.allowance,
      creditsUsed: balance.used,
      creditsResetAt: balance.resetsAt.toISOString(),
    };
  },
});

export const jobStatus = defineOperation({
  name: 'job_status',
  title: 'Job status',
  description:
    'Status, progress and result of a job. Poll every few seconds. Free.',
  http: { method: 'GET', path: '/v1/jobs/{jobId}' },
  output: jobReply(z.unknown()),
  input: z.object({ jobId: jobIdInput }),
  // Listed with every group that has a job tool: those tools return a jobId when the job outlasts their wait.
  groups: JOB_FOLLOW_GROUPS,
  ...FREE_LOOKUP,
  async run(input, ctx) {
    return publicJob(await ctx.services.jobs.get(input.jobId, ctx.account.id));
  },
});
