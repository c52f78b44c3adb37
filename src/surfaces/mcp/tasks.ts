/** Jobs as tasks of the MCP Tasks extension: the task id is the job id, so any process answers for a task. */
import type { JobStatus } from '../../jobs/jobs.js';
import type { JobTask, ToolOutcome } from './toolset.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client should poll a task (the job's progress is written about this often). */
export const TASK_POLL_MS = 2_000;

type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

const STATUS: Record<JobStatus, TaskStatus> = {
  queued: 'working',
  processing: 'working',
  completed: 'completed',
  // A failed job is a tool result with isError (the spec keeps `failed` for JSON-RPC errors).
  failed: 'completed',
  cancelled: 'cancelled',
};

/** The task's wire shape; with `toResult`, an ended task carries its tool result inline. */
export function taskOf(task: JobTask, toResult?: (outcome: ToolOutcome) => unknown) {
  const { job, outcome } = task;
  const status = STATUS[job.status];
  const p = job.progress;
  const working = p ? `${job.operation}: ${p.done}${p.total !== undefined ? ` of ${p.total}` : ''}${p.message ? ` (${p.message})` : ''}` : `${job.operation} is ${job.status}.`;
  const statusMessage = status === 'working' ? working : status === 'cancelled' ? `${job.operation} was cancelled; what it did before stopping is charged.` : undefined;
  return {
    taskId: job.jobId,
    status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt: job.createdAt,
    lastUpdatedAt: job.updatedAt,
    ttlMs: null,
    pollIntervalMs: TASK_POLL_MS,
    ...(toResult && status === 'completed' && outcome ? { result: toResult(outcome) } : {}),
  };
}
