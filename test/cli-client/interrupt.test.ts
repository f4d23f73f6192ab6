// Stopping jobs from the command line, with the real binary against a real server: `unfurl jobs
// cancel ID`, and Ctrl-C (SIGINT to the child process) while a command waits for its job — which
// cancels the job on the server and says so (a crawl then writes the pages it kept), or with
// --detach leaves it running and prints its id.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientTestServer, startClientTestServer } from '../sdk/server.js';
import { CLI, ROOT, runCli } from '../support/cli.js';
import { ensureClientBuilt } from './binary.js';

let s: ClientTestServer;
let dir: string;
/** A media host that answers headers, then never sends the body: a download that waits. */
let stalling: http.Server;
let stallingUrl: string;

beforeAll(async () => {
  await ensureClientBuilt();
  // 40 ms a page, 2 pages at a time: a crawl of 99 pages takes a few seconds.
  s = await startClientTestServer(
    { UNFURL_CRAWL_CONCURRENCY: '2', UNFURL_CRAWL_HOST_CONCURRENCY: '2' },
    { siteDelayMs: 40 },
  );
  stalling = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '50000000' });
    res.write(Buffer.alloc(1024));
  });
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  stallingUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/clip.mp4`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-int-'));
}, 300_000);

afterAll(async () => {
  stalling?.closeAllConnections();
  await new Promise((r) => stalling?.close(r));
  await s?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function account() {
  const { apiKey } = await s.t.register();
  const env = {
    XDG_CONFIG_HOME: path.join(dir, `cfg-${apiKey.slice(-6)}`),
    UNFURL_API_URL: s.url,
    UNFURL_API_KEY: apiKey,
  };
  const api = async (method: 'GET' | 'POST', url: string, payload?: object) =>
    (await s.t.call(apiKey, { method, url, ...(payload && { payload }) })).json();
  return { apiKey, env, api };
}

interface Child {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

function start(args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => ({ stdout, stderr }), exited };
}

/** The account's only job once it shows `status` (polled through the API). */
async function onlyJob(api: Awaited<ReturnType<typeof account>>['api'], status: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { jobs } = await api('GET', '/v1/jobs');
    if (jobs.length === 1 && jobs[0].status === status) return jobs[0];
    if (Date.now() > deadline) throw new Error(`no ${status} job: ${JSON.stringify(jobs)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('unfurl jobs cancel', () => {
  it('cancels a running job, then refuses to cancel it again (exit 5, conflict)', async () => {
    const { env, api } = await account();
    const { jobId } = await api('POST', '/v1/web/crawl', { url: `${s.site.url}/docs`, limit: 99 });
    await onlyJob(api, 'active');
    const r = await runCli(['jobs', 'cancel', jobId], env);
    expect(r.code, r.stderr).toBe(0);
    const job = await api('GET', `/v1/jobs/${jobId}`);
    expect(job.status).toBe('cancelled');
    // Who stopped it: a cancel (beside `limit` and `deadline`), not the tautology `stopped`.
    expect(job.result).toMatchObject({ stoppedBy: 'cancel' });
    expect(JSON.parse((await runCli(['jobs', jobId, '--json'], env)).stdout).result.stoppedBy).toBe('cancel');
    expect(r.stdout.trim()).toBe(
      `cancelled job ${jobId} (${job.credits} credit${job.credits === 1 ? '' : 's'} charged)`,
    );
    const again = await runCli(['jobs', 'cancel', jobId, '--json'], env);
    expect(again.code).toBe(5);
    expect(JSON.parse(again.stderr)).toMatchObject({
      error: 'conflict',
      status: 409,
      details: 'status=cancelled',
    });
    const listed = await runCli(['jobs', '--status', 'cancelled', '--json'], env);
    expect(JSON.parse(listed.stdout).jobs.map((j: { id: string }) => j.id)).toEqual([jobId]);
    const usage = await runCli(['jobs', 'cancel'], env);
    expect(usage.code).toBe(2);
  });
});

describe('Ctrl-C while waiting', () => {
  it('during a crawl: cancels the job on the server, writes the pages it kept, exits 130', async () => {
    const { env, api } = await account();
    const out = path.join(dir, 'crawl-int');
    const run = start(['crawl', `${s.site.url}/docs`, '--limit', '99', '--out', out], env);
    // Interrupt once a few pages are in.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const { jobs } = await api('GET', '/v1/jobs');
      if (jobs[0]?.status === 'active' && fs.existsSync(out)) {
        const poll = await api('GET', `/v1/web/crawl/${jobs[0].id}`);
        if (poll.total >= 3) break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const sent = Date.now();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(Date.now() - sent).toBeLessThan(5000);
    const { stderr } = run.output();
    const job = await onlyJob(api, 'cancelled', 1000);
    expect(stderr).toContain(`cancelling job ${job.id}`);
    expect(stderr).toContain(`cancelled job ${job.id} on the server (${job.credits} credits charged)`);
    expect(stderr).toContain('interrupted');
    // The folder holds every page the crawl kept (and was billed for).
    const kept = (await api('GET', `/v1/jobs/${job.id}`)).result.pagesScraped as number;
    expect(kept).toBeGreaterThanOrEqual(3);
    expect(job.credits).toBe(1 + kept);
    expect(stderr).toContain(`${kept} pages written to ${out}`);
    const files =
      fs.readdirSync(path.join(out, 'docs', 'p')).length + (fs.existsSync(path.join(out, 'docs.md')) ? 1 : 0);
    expect(files).toBe(kept);
  });

  it('with --detach: prints the job id and leaves it running', async () => {
    const { env, api } = await account();
    const run = start(
      ['crawl', `${s.site.url}/docs`, '--limit', '99', '--detach', '--out', path.join(dir, 'det')],
      env,
    );
    const job = await onlyJob(api, 'active');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.output().stderr).toContain(`job ${job.id} left running (--detach)`);
    expect(run.output().stderr).not.toContain('cancelling');
    await new Promise((r) => setTimeout(r, 300));
    expect(['active', 'completed']).toContain((await api('GET', `/v1/jobs/${job.id}`)).status);
    // Tidy up: nothing keeps crawling after the test.
    await api('POST', `/v1/jobs/${job.id}/cancel`);
  });

  it('during an OCR job whose download waits: the job stops on the server, nothing charged', async () => {
    const { env, api } = await account();
    const run = start(['ocr', stallingUrl], env);
    const job = await onlyJob(api, 'active');
    const sent = Date.now();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(run.output().stderr).toContain(`cancelled job ${job.id} on the server (0 credits charged)`);
    expect(await api('GET', `/v1/jobs/${job.id}`)).toMatchObject({ status: 'cancelled', credits: 0 });
    expect((await api('GET', '/v1/account')).credits).toBe(100);
  });
});
