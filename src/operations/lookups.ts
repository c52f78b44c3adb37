/**
 * What the views of Gleaner's own records share (the account, a job's status, the job list, the
 * SDK's result views, and cancelling a job): free, answered at once, touching nothing outside Gleaner.
 */
import { z } from 'zod';
import type { ToolGroup } from './define.js';

export const FREE_LOOKUP = { plan: 'Free', cost: 0, kind: 'sync', readOnly: true, openWorld: false } as const;

/** The tool groups with a job tool (crawl, batches, analysis): the tools that follow a job are listed with each. */
export const JOB_FOLLOW_GROUPS: ToolGroup[] = ['account', 'web', 'youtube', 'analysis'];

/** A job id, as the operation that started the job returned it. */
export const jobIdInput = z.string().min(1).max(100);
