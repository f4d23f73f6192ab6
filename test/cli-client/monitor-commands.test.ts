// `unfurl monitor`, the real binary against a real server that runs jobs and monitor ticks: a page
// monitor on a loopback page whose noise changes on every fetch and whose one paragraph changes once.
// add, list, `events --follow` printing the change live (and exiting 0 on Ctrl-C), events with its
// diff, pause, resume, check now, rm, a schedule under the server's minimum, and usage mistakes.
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A page whose noise (a time, a rotating ad, tokens in links) changes on every fetch; `pricing` is the real content. */
class Page {
  fetches = 0;
  pricing = 'The Pro plan costs 20 dollars a month and includes five seats.';
  private readonly server = http.createServer((_req, res) => {
    const n = ++this.fetches;
    const token = `${n}a9f3c${(n * 7919).toString(16)}e2b7d41c`;
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Acme pricing</title></head><body>
<main><article>
<h1>Acme pricing</h1>
<p>Updated ${n} minutes ago — ${new Date(Date.UTC(2026, 10, 28, 10, n % 60, 0)).toISOString()}</p>
<p>Acme makes tools for teams who ship every day. Our plans are simple and billed monthly with no setup fees at all.</p>
<h2>Plans</h2>
<p>${this.pricing}</p>
<p>The Team plan adds single sign-on, audit logs and priority support for larger organisations.</p>
<p>Sponsored: ${['Try Widgets today', 'Gadgets on sale now', 'Sprockets for everyone', 'Cogs half price'][n % 4]} — offer ${n * 37}</p>
<p>Read the <a href="/docs?token=${token}">documentation</a> or <a href="/contact?session=${token}">contact sales</a>.</p>
</article></main></body></html>`);
  });
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let s: ClientTestServer;
let dir: string;
const page = new Page();

beforeAll(async () => {
  await ensureClientBuilt();
  await page.start();
  s = await startClientTestServer({
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
    UNFURL_ACCOUNT_MAX_MONITORS: '200',
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-monitor-'));
}, 300_000);

afterAll(async () => {
  await s?.close();
  await page.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh account with credits for many checks, and the CLI's environment for it. */
async function account(credits = 1000) {
  const { apiKey, accountId } = await s.t.register();
  await s.t.services.ledger.grant(accountId, credits, 'test: monitor checks');
  const env = {
    XDG_CONFIG_HOME: path.join(dir, `cfg-${apiKey.slice(-6)}`),
    UNFURL_API_URL: s.url,
    UNFURL_API_KEY: apiKey,
  };
  const api = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const res = await s.t.call(apiKey, { method, url, ...(payload && { payload }) });
    return { status: res.statusCode, body: res.json() };
  };
  const cli = (...args: string[]) => runCli(['monitor', ...args], env);
  return { env, api, cli };
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

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const TIME = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z';

describe('unfurl monitor', () => {
  it('adds a page monitor, lists it, follows its events live, and shows the diff', async () => {
    const { env, api, cli } = await account();
    const target = `${page.url}/pricing`;
    const added = await cli('add', 'page', target, '--every', '1s', '--name', 'Acme pricing');
    expect(added.code, added.stderr).toBe(0);
    const id = /^id\s+(\S+)$/m.exec(added.stdout)?.[1];
    expect(id, added.stdout).toMatch(/^mon_/);
    expect(added.stdout).toMatch(/^kind\s+page$/m);
    expect(added.stdout).toContain(target);
    expect(added.stdout).toMatch(/^schedule\s+1s$/m);
    expect(added.stdout).toMatch(
      new RegExp(`^feed\\s+http://\\S+/v1/monitors/${id}/feed\\.atom\\?token=\\S+$`, 'm'),
    );
    expect(added.stderr).toContain(`unfurl monitor events ${id} --follow`);

    const listed = await cli('list');
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+KIND\s+STATUS\s+EVERY\s+CHECKS\s+EVENTS\s+TARGET$/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${id}\\s+page\\s+active\\s+1s\\s+\\d+\\s+0\\s+Acme pricing$`));
    const json = JSON.parse((await cli('list', '--json')).stdout);
    expect(json.monitors.map((m: { id: string }) => m.id)).toEqual([id]);

    const follow = start(['monitor', 'events', id!, '--follow'], {
      ...env,
      UNFURL_FOLLOW_INTERVAL_MS: '100',
    });
    await until('the tail to start', () => follow.output().stderr.includes(`following ${id}`));
    // The baseline, then checks that see only noise: nothing is printed.
    await until('four checks', async () => (await api('GET', `/v1/monitors/${id}`)).body.checks >= 4);
    expect(follow.output().stdout).toBe('');

    page.pricing = 'The Pro plan now costs 25 dollars a month and includes ten seats.';
    await until('the page.changed line', () => follow.output().stdout.includes('page.changed'), 15_000);
    await sleep(300);
    expect(follow.output().stdout).toMatch(new RegExp(`^${TIME}  page\\.changed +Acme pricing  \\+1 -1\\n$`));

    const sent = Date.now();
    follow.child.kill('SIGINT');
    expect(await follow.exited).toBe(0);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(follow.output().stderr).not.toContain('interrupted');

    const withDiff = await cli('events', id!, '--diff');
    expect(withDiff.code, withDiff.stderr).toBe(0);
    expect(withDiff.stdout).toMatch(new RegExp(`^${TIME}  page\\.changed +Acme pricing  \\+1 -1$`, 'm'));
    expect(withDiff.stdout).toContain('-The Pro plan costs 20 dollars a month and includes five seats.');
    expect(withDiff.stdout).toContain('+The Pro plan now costs 25 dollars a month and includes ten seats.');
    expect(withDiff.stdout).not.toMatch(/^[-+].*(Sponsored|Updated|token=)/m);
    // Without --diff: one line an event.
    const plain = await cli('events', id!);
    expect(plain.stdout.trim().split('\n')).toHaveLength(1);
    const raw = JSON.parse((await cli('events', id!, '--json')).stdout);
    expect(raw.events.map((e: { type: string }) => e.type)).toEqual(['page.changed']);
  });

  it('--follow --json prints each new event as one JSON line', async () => {
    const { env, api, cli } = await account();
    const id = JSON.parse((await cli('add', 'page', `${page.url}/p2`, '--every', '1d', '--json')).stdout).id;
    await until('the baseline', async () => (await api('GET', `/v1/monitors/${id}`)).body.checks >= 1);
    const follow = start(['monitor', 'events', id, '-f', '--json'], {
      ...env,
      UNFURL_FOLLOW_INTERVAL_MS: '100',
    });
    await sleep(500);
    expect((await cli('pause', id)).code).toBe(0);
    await until('the paused event', () => follow.output().stdout.includes('\n'));
    follow.child.kill('SIGINT');
    expect(await follow.exited).toBe(0);
    const events = follow
      .output()
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events).toEqual([expect.objectContaining({ type: 'monitor.paused', data: { reason: 'user' } })]);
  });

  it('pauses, resumes, checks now and removes a monitor', async () => {
    const { api, cli } = await account();
    const created = await cli('add', 'page', `${page.url}/other`, '--every', '1d', '--json');
    expect(created.code, created.stderr).toBe(0);
    const m = JSON.parse(created.stdout);
    expect(m).toMatchObject({ kind: 'page', every: '1d', status: 'active', target: `${page.url}/other` });
    await until('the baseline', async () => (await api('GET', `/v1/monitors/${m.id}`)).body.checks >= 1);

    const paused = await cli('pause', m.id);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain(`paused ${m.id}`);
    expect((await api('GET', `/v1/monitors/${m.id}`)).body).toMatchObject({
      status: 'paused',
      pausedReason: 'user',
    });
    expect((await cli('list')).stdout).toMatch(new RegExp(`^${m.id}\\s+page\\s+paused\\s+1d`, 'm'));

    const resumed = await cli('resume', m.id);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^resumed ${m.id}: next check ${TIME}\\n$`));
    expect((await api('GET', `/v1/monitors/${m.id}`)).body.status).toBe('active');

    const events = await cli('events', m.id);
    expect(events.stdout).toMatch(
      new RegExp(
        `^${TIME}  monitor\\.paused +paused by you\\n${TIME}  monitor\\.resumed +resumed by you\\n$`,
      ),
    );

    const checked = await cli('check', m.id);
    expect(checked.code, checked.stderr).toBe(0);
    const jobId = /job (job_\w+)/.exec(checked.stdout)?.[1];
    expect(jobId, checked.stdout).toBeDefined();
    await until('the check now', async () => (await api('GET', `/v1/monitors/${m.id}`)).body.checks >= 2);

    const removed = await cli('rm', m.id);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`deleted ${m.id}`);
    expect((await api('GET', `/v1/monitors/${m.id}`)).status).toBe(404);
    expect((await cli('list')).stdout).toContain('no monitors');
    const gone = await cli('events', m.id);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toMatch(/not found/i);
  });

  it('lists every page of monitors', async () => {
    const { api, cli } = await account(5000);
    const ids = new Set<string>();
    for (let i = 0; i < 103; i++) {
      const r = await api('POST', '/v1/monitors', {
        kind: 'page',
        target: `${page.url}/many/${i}`,
        every: '1d',
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids.add(r.body.id);
    }
    const json = await cli('list', '--json');
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout).monitors.map((m: { id: string }) => m.id);
    expect(listed).toHaveLength(103);
    expect(new Set(listed)).toEqual(ids);
    const text = await cli('list');
    expect(text.stdout.trim().split('\n')).toHaveLength(104);
  });

  it("a schedule under the server's minimum is refused with the API's word on `every`", async () => {
    const { cli } = await account();
    const r = await cli('add', 'page', `${page.url}/x`, '--every', '10ms');
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/every/);
    expect(r.stderr).toMatch(/at least 1s/);
    const json = await cli('add', 'page', `${page.url}/x`, '--every', '10ms', '--json');
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'invalid_request', status: 400 });
    expect(JSON.stringify(JSON.parse(json.stderr))).toMatch(/every/);
    expect(JSON.parse((await cli('list', '--json')).stdout).monitors).toEqual([]);
  });

  it('usage mistakes exit 2 before any request', async () => {
    const { cli } = await account();
    for (const args of [
      ['add', 'page', `${page.url}/x`],
      ['add', 'feed', `${page.url}/x`, '--every', '1h'],
      ['add', 'page', 'not a url', '--every', '1h'],
      ['add', 'channel', '@someone', '--every', '1h', '--lang', 'en'],
      ['add', 'page', `${page.url}/x`, '--every', '1h', '--follow'],
      ['events', 'mon_x', '--every', '1h'],
      ['frobnicate'],
      ['pause'],
      ['list', 'extra'],
    ]) {
      const r = await cli(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('usage: unfurl monitor');
    }
    expect(JSON.parse((await cli('list', '--json')).stdout).monitors).toEqual([]);
  });
});
