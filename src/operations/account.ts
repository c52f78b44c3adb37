import { z } from 'zod';
import { defineOperation } from './define.js';
import { publicJob } from '../jobs/jobs.js';
import { accountReply, jobReply } from './outputs.js';
import { FREE_LOOKUP, jobIdInput } from './lookups.js';

/** What `credits` shows on a plan without a monthly limit (Enterprise). */
export const UNLIMITED_CREDITS = 2 ** 31 - 1;

export const account = defineOperation({
  name: 'account',
  title: 'Account',
  description: 'Shows the account of the API key in use: its id, plan and remaining credits this month. Free to call.',
  http: { method: 'GET', path: '/v1/me' },
  input: z.object({}),
  output: accountReply,
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
    'Shows a job started by web_crawl or video_analysis: its status (queued, processing, completed, failed), progress and, once completed, its result. Poll every 2 to 5 seconds. Free to call.',
  http: { method: 'GET', path: '/v1/jobs/{jobId}' },
  output: jobReply(z.unknown()),
  input: z.object({ jobId: jobIdInput }),
  ...FREE_LOOKUP,
  async run(input, ctx) {
    return publicJob(await ctx.services.jobs.get(input.jobId, ctx.account.id));
  },
});
