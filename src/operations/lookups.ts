/**
 * What the views of Gleaner's own records share (the account, a job's status, the job list, the
 * SDK's result views, and cancelling a job): free, answered at once, touching nothing outside Gleaner.
 */
import { z } from 'zod';

export const FREE_LOOKUP = { plan: 'Free', cost: 0, kind: 'sync', readOnly: true, openWorld: false } as const;

/** A job id, as the operation that started the job returned it. */
export const jobIdInput = z.string().min(1).max(100);
