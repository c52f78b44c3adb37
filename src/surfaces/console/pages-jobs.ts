/** The key's jobs: a list with their status, one job's page, and the cancel button of a running one. */
import { isFinal, publicJob, type JobRecord } from '../../jobs/jobs.js';
import { html, when, type Html } from './html.js';

/** A job's result can be large: the page shows its start, the API gives all of it. */
const RESULT_PREVIEW_CHARS = 4_000;

/** A result as a person reads it (a crawl's pages, a transcript's lines: surfaces/text), or undefined to show its JSON. */
export type ResultText = (job: JobRecord) => string | undefined;

function statusCell(job: JobRecord): Html {
  return html`<span class="status-${job.status}">${job.status}</span>${job.cancelRequested && !isFinal(job.status) ? ' (cancelling)' : ''}`;
}

function progressText(job: JobRecord): string {
  if (!job.progress) return '';
  const { done, total, message } = job.progress;
  return `${done}${total !== undefined ? ` / ${total}` : ''}${message ? ` · ${message}` : ''}`;
}

function cancelForm(job: JobRecord, csrf: string): Html | string {
  if (isFinal(job.status)) return '';
  return html`<form class="inline" method="post" action="/console/jobs/${encodeURIComponent(job.jobId)}/cancel"><input type="hidden" name="csrf" value="${csrf}"><button class="danger" type="submit">Cancel</button></form>`;
}

export function jobsBody(jobs: JobRecord[], nextCursor: number | null, csrf: string): Html {
  if (jobs.length === 0) return html`<p class="note">This key has started no job (crawls, batches and analyses run as jobs).</p>`;
  return html`<table id="jobs"><tr><th>Job</th><th>Operation</th><th>Status</th><th>Progress</th><th class="num">Credits</th><th>Started</th><th></th></tr>${jobs.map(
    (job) =>
      html`<tr><td class="mono"><a href="/console/jobs/${encodeURIComponent(job.jobId)}">${job.jobId}</a></td><td class="mono">${job.operation}</td><td>${statusCell(job)}</td><td>${progressText(job)}</td><td class="num">${publicJob(job).creditsUsed}</td><td>${when(job.createdAt)}</td><td>${cancelForm(job, csrf)}</td></tr>`,
  )}</table>
${nextCursor !== null ? html`<p><a href="/console/jobs?cursor=${nextCursor}">Older jobs</a></p>` : ''}`;
}

export function jobBody(job: JobRecord, csrf: string, asText: ResultText, notice?: string): Html {
  const view = publicJob(job);
  const resultText = view.result === null ? '' : (asText(job) ?? JSON.stringify(view.result, null, 2));
  return html`${notice ? html`<p class="success">${notice}</p>` : ''}
<table id="job">
<tr><th>Job</th><td class="mono">${job.jobId}</td></tr>
<tr><th>Operation</th><td class="mono">${job.operation}</td></tr>
<tr><th>Status</th><td id="job-status">${statusCell(job)}</td></tr>
<tr><th>Progress</th><td>${progressText(job) || '—'}</td></tr>
<tr><th>Credits charged</th><td>${view.creditsUsed}</td></tr>
<tr><th>Created</th><td>${when(job.createdAt)}</td></tr>
<tr><th>Updated</th><td>${when(job.updatedAt)}</td></tr>
${job.finishedAt ? html`<tr><th>Finished</th><td>${when(job.finishedAt)}</td></tr>` : ''}
${job.error ? html`<tr><th>Error</th><td><code>${job.error.code}</code> ${job.error.message}</td></tr>` : ''}
</table>
<p>${cancelForm(job, csrf)} <a href="/console/jobs/${encodeURIComponent(job.jobId)}">Refresh</a> · <a href="/console/jobs">All jobs</a></p>
${
  resultText
    ? html`<h2>Result</h2><p class="note">The whole result: <code>GET /v1/jobs/${job.jobId}</code> with this key.</p><pre id="job-result" class="mono">${resultText.slice(0, RESULT_PREVIEW_CHARS)}${resultText.length > RESULT_PREVIEW_CHARS ? '\n…' : ''}</pre>`
    : ''
}`;
}
