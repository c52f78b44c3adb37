import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { TEST_OPERATIONS, gates } from '../support/test-operations.js';
import type { JobRecord } from '../../src/jobs/jobs.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function releaseSteps(count: number) {
  for (let i = 0; i < count; i++) {
    // A step waits on the event; give the runner a turn to reach it.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (gates.listenerCount('step') === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    gates.emit('step');
  }
}

describe('jobs over REST', () => {
  it('moves queued -> processing -> completed, shows progress, and settles the credits', async () => {
    server = await startTestServer({ operations: TEST_OPERATIONS });
    const key = await server.createKey('Free');
    const started = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 3 } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'queued', result: null });
    expect(started.body.message).toContain(started.body.jobId);
    // A start charges nothing yet: the reservation has its own header, the job its creditsUsed.
    expect(started.headers.get('X-Credits-Used')).toBe('0');
    expect(started.headers.get('X-Credits-Reserved')).toBe('3');
    expect(started.body.creditsUsed).toBe(0);
    const { jobId } = started.body;
    const account = (await server.request('GET', '/v1/me', { apiKey: key })).body;

    await releaseSteps(1);
    const running = await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(running.body.status).toBe('processing');

    await releaseSteps(2);
    const done = await server.app.services.jobs.waitFor(jobId, account.id, 5_000);
    expect(done.status).toBe('completed');
    const finished = await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(finished.body).toMatchObject({ jobId, status: 'completed', result: { steps: 3 }, progress: { done: 3, total: 3 }, creditsUsed: 3 });
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(97);
  });

  it('a failed job carries its error and charges nothing', async () => {
    server = await startTestServer({ operations: TEST_OPERATIONS });
    const key = await server.createKey('Free');
    const started = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 1, fail: true } });
    const account = (await server.request('GET', '/v1/me', { apiKey: key })).body;
    await releaseSteps(1);
    const job = await server.app.services.jobs.waitFor(started.body.jobId, account.id, 5_000);
    expect(job.status).toBe('failed');
    expect(job.error).toEqual({ code: 'UPSTREAM_ERROR', message: 'the test asked this job to fail' });
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(100);
  });

  it("another key's job, or an unknown id, is 404", async () => {
    server = await startTestServer({ operations: TEST_OPERATIONS });
    const owner = await server.createKey('Free');
    const stranger = await server.createKey('Free');
    const started = await server.request('POST', '/v1/test/job', { apiKey: owner, body: { steps: 1 } });
    const response = await server.request('GET', `/v1/jobs/${started.body.jobId}`, { apiKey: stranger });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    await releaseSteps(1);
  });

  it('on restart, a job a dead process left processing is failed and refunded; a queued one runs', async () => {
    server = await startTestServer({ operations: TEST_OPERATIONS });
    const key = await server.createKey('Free');
    const { account } = { account: (await server.request('GET', '/v1/me', { apiKey: key })).body };
    const { store, accounts } = server.app.services;
    // Simulate a process that died mid-job: its record says processing and its credits are reserved.
    const { reservation } = await accounts.reserve(account.id, 2);
    const now = new Date().toISOString();
    const base = { operation: 'test_job', ownerId: account.id, result: null, error: null, progress: null, createdAt: now, updatedAt: now };
    const orphan: JobRecord = { ...base, jobId: 'job_orphan', status: 'processing', input: { steps: 2, fail: false }, meta: { reservation } };
    const waiting: JobRecord = { ...base, jobId: 'job_waiting', status: 'queued', input: { steps: 1, fail: false }, meta: {} };
    await store.set('job:job_orphan', orphan);
    await store.set('job:job_waiting', waiting);
    await store.set('jobs:active', ['job_orphan', 'job_waiting']);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(98);

    const dataDir = server.dataDir;
    await server.close();
    server = await startTestServer({ operations: TEST_OPERATIONS, dataDir });
    const failed = await server.request('GET', '/v1/jobs/job_orphan', { apiKey: key });
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error.message).toMatch(/process running this job stopped/);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(100);

    await releaseSteps(1);
    const resumed = await server.app.services.jobs.waitFor('job_waiting', account.id, 5_000);
    expect(resumed.status).toBe('completed');
  });

  it('credits a running job reserves are kept in its record, so the process that takes it over refunds them all', async () => {
    const env = { GLEANER_JOB_LEASE_SECONDS: '0.5' };
    server = await startTestServer({ operations: TEST_OPERATIONS, env });
    const key = await server.createKey('Free');
    const started = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 1, extra: 4 } });
    const { jobId } = started.body;
    // The job reserved 1 up front and 4 more while running; it now waits for a step that never comes. Waited for
    // by its own record (a listener on the gate may still be an earlier test's job on a busy machine).
    const first = server;
    const reserved = async () => {
      const job = await first.app.services.store.get<JobRecord>(`job:${jobId}`);
      return job?.meta.reservation && (job.meta.reservation as { amount: number }).amount === 5 ? job : undefined;
    };
    let record = await reserved();
    while (!record || gates.listenerCount('step') === 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      record = await reserved();
    }
    expect((record.meta.reservation as { amount: number }).amount).toBe(5);
    expect(record!.lease?.owner).toBe(server.app.services.jobs.processId);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(95);

    const dataDir = server.dataDir;
    const ownerId = record!.ownerId;
    await server.close();
    gates.removeAllListeners('step');
    server = await startTestServer({ operations: TEST_OPERATIONS, dataDir, env });
    // Taken over once the dead holder's lease expires.
    const ended = await server.app.services.jobs.waitFor(jobId, ownerId, 10_000);
    expect(ended).toMatchObject({ status: 'failed', result: null, error: { code: 'INTERNAL_ERROR' } });
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(100);
  });

  it('a second process on the same store leaves a job with a live lease alone', async () => {
    const env = { GLEANER_JOB_LEASE_SECONDS: '1' };
    server = await startTestServer({ operations: TEST_OPERATIONS, env });
    const key = await server.createKey('Free');
    const started = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 2 } });
    const { jobId } = started.body;
    await releaseSteps(1);
    const other = await startTestServer({ operations: TEST_OPERATIONS, dataDir: server.dataDir, env });
    try {
      const ownerId = (await server.request('GET', '/v1/me', { apiKey: key })).body.id;
      // Several lease periods pass with the holder renewing: the other process's sweeps must not touch it.
      const still = await other.app.services.jobs.waitFor(jobId, ownerId, 2_500);
      expect(still.status).toBe('processing');
      expect(still.lease?.owner).toBe(server.app.services.jobs.processId);
      await releaseSteps(1);
      const done = await server.app.services.jobs.waitFor(jobId, ownerId, 5_000);
      expect(done).toMatchObject({ status: 'completed', error: null, result: { steps: 2 } });
      expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(98);
    } finally {
      await other.close();
    }
  });
});
