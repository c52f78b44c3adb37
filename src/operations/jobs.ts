/** Job operations beside job_status: list a key's jobs, cancel one. */
import { z } from 'zod';
import { defineOperation } from './define.js';
import { publicJob } from '../jobs/jobs.js';
import { jobReply } from './outputs.js';
import { FREE_LOOKUP, JOB_FOLLOW_GROUPS, jobIdInput } from './lookups.js';

const jobSummary = jobReply(z.unknown()).omit({ result: true });

/** How long a cancel waits for the job to stop at its next page or chunk before answering. */
const CANCEL_WAIT_MS = 10_000;

export const jobCancel = defineOperation({
  name: 'job_cancel',
  title: 'Cancel a job',
  description:
    'Cancels a job; the part done is charged, the rest refunded. Free.',
  http: { method: 'DELETE', path: '/v1/jobs/{jobId}' },
  input: z.object({ jobId: jobIdInput }),
  output: jobReply(z.unknown()),
  groups: JOB_FOLLOW_GROUPS,
  ...FREE_LOOKUP,
  readOnly: false,
  async run(input, ctx) {
    return publicJob(await ctx.services.jobs.cancel(input.jobId, ctx.account.id, CANCEL_WAIT_MS));
  },
});

export const jobList = defineOperation({
  name: 'job_list',
  title: 'List jobs',
  description:
    "This key's recent jobs, newest first, without results. Free.",
  http: { method: 'GET', path: '/v1/jobs' },
  input: z.object({
    limit: z.number().int().min(1).max(100).default(20).describe('Jobs per page'),
    cursor: z.string().regex(/^\d{1,6}$/, 'is not a cursor from a previous page').optional().describe('nextCursor of the previous page'),
  }),
  groups: ['account'],
  output: z.object({ jobs: z.array(jobSummary), nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last') }),
  ...FREE_LOOKUP,
  async run(input, ctx) {
    const page = await ctx.services.jobs.list(ctx.account.id, { limit: input.limit, cursor: input.cursor === undefined ? undefined : Number(input.cursor) });
    return {
      jobs: page.jobs.map((job) => {
        const { result: _result, ...summary } = publicJob(job);
        return summary;
      }),
      nextCursor: page.nextCursor === null ? null : String(page.nextCursor),
    };
  },
});
