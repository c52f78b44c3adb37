/**
 * Short replies with nothing to page (a job without a result to page, the account, the list of jobs)
 * in words, then a block saying what to call next: a model never digs the jobId out of a JSON dump.
 */
import type { AnyOperation } from '../../operations/define.js';

type Reply = Record<string, any>;

/** Which tools the server lists: a reply only points at a tool the model can call. */
export type Listed = (name: string) => boolean;

const number = (n: unknown) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n));

function progressOf(job: Reply): string {
  const p = job.progress as { done?: number; total?: number; message?: string } | null | undefined;
  if (!p || typeof p.done !== 'number') return '';
  return ` (${number(p.done)}${typeof p.total === 'number' ? ` of ${number(p.total)}` : ''} done${p.message ? `, ${p.message}` : ''})`;
}

/** A job without a result to page: running, queued, failed, or ended with nothing done. */
function jobText(job: Reply, listed: Listed, waitedSeconds?: number): string[] {
  const id = `jobId="${job.jobId}"`;
  const credits = `${number(job.creditsUsed ?? 0)} credit${job.creditsUsed === 1 ? '' : 's'} used`;
  switch (job.status) {
    case 'queued':
    case 'processing': {
      const still = waitedSeconds === undefined ? `is ${job.status}` : `is still ${job.status} after ${waitedSeconds} s`;
      const next = [
        listed('job_status') ? `Call job_status with ${id} in a few seconds to get its result` : undefined,
        listed('job_cancel') ? `job_cancel with ${id} to stop it (the part done is charged)` : undefined,
      ].filter(Boolean);
      return [`Job ${job.jobId} (${job.operation}) ${still}${progressOf(job)}${job.cancelRequested ? ', stopping: a cancel was asked' : ''}.`, next.length ? `${next.join(', or ')}.` : ''];
    }
    case 'failed':
      return [`Job ${job.jobId} (${job.operation}) failed: ${job.error?.code ?? 'ERROR'}: ${job.error?.message ?? ''}`, 'Nothing was charged. Fix what the message says and call the tool again.'];
    default:
      return [`Job ${job.jobId} (${job.operation}) ${job.status === 'cancelled' ? 'was cancelled' : job.status}${progressOf(job)}; ${credits}.`, job.result ? '' : 'It has no result.'];
  }
}

function accountText(account: Reply, listed: Listed): string[] {
  const credits = account.unlimited
    ? `unlimited credits (${number(account.creditsUsed)} used this period)`
    : `${number(account.credits)} credits left of ${number(account.monthlyCredits)} (${number(account.creditsUsed)} used)`;
  return [`Account ${account.id}: plan ${account.plan}, ${credits}; the credits renew at ${account.creditsResetAt}.`, listed('job_list') ? "Call job_list to see this key's jobs; each tool's description says what it costs." : "Each tool's description says what it costs."];
}

function jobListText(list: Reply, listed: Listed): string[] {
  const jobs = (list.jobs ?? []) as Reply[];
  const lines = jobs.map(
    (job) => `- ${job.jobId} · ${job.operation} · ${job.status}${progressOf(job)} · ${number(job.creditsUsed ?? 0)} credits · ${job.createdAt}${job.error ? ` · ${job.error.code}` : ''}`,
  );
  const head = jobs.length === 0 ? 'No jobs on this page.' : `${jobs.length} job${jobs.length === 1 ? '' : 's'}, newest first:\n${lines.join('\n')}`;
  const next = [
    list.nextCursor ? `For older jobs call job_list with cursor="${list.nextCursor}".` : jobs.length ? 'That is the last of them.' : '',
    jobs.length && listed('job_status') ? 'Call job_status with a jobId for its result.' : '',
  ].filter(Boolean);
  return [head, next.join(' ')];
}

/** The text blocks of a short reply (empty ones left out), or undefined for one shown as its JSON (a video's facts: its field names read best). */
export function readableBlocks(operation: AnyOperation, reply: unknown, listed: Listed, waitedSeconds?: number): string[] | undefined {
  if (!reply || typeof reply !== 'object' || Array.isArray(reply)) return undefined;
  const body = reply as Reply;
  let blocks: string[] | undefined;
  if (operation.name === 'account') blocks = accountText(body, listed);
  else if (operation.name === 'job_list') blocks = jobListText(body, listed);
  else if (typeof body.jobId === 'string' && typeof body.status === 'string' && typeof body.operation === 'string') blocks = jobText(body, listed, waitedSeconds);
  return blocks?.filter((block) => block.length > 0);
}
