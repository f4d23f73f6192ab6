// Real `serve` / `worker` processes for crash and shutdown tests: spawns
// `node --import tsx test/support/job-process.ts serve|worker` (the production entry points with the
// test job kinds), waits until they are ready, and keeps track of them so a test can always kill
// every child it started. Plus small HTTP and polling helpers for talking to them.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { TestEnv } from './env.js';
import { waitForNoConnections } from './teardown.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type Role = 'serve' | 'worker';

export interface JobProcess {
  role: Role;
  pid: number;
  /** Base URL of a `serve` process (null for a worker). */
  url: string | null;
  child: ChildProcess;
  /** Everything the process wrote so far (for failure messages). */
  output(): string;
  /** Resolves with how it ended (at once if it already has). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** SIGKILL, and wait until it is gone. */
  kill9(): Promise<void>;
}

const running = new Set<JobProcess>();

/** Variables of this (test) process that must not leak into a child unless the test passes them. */
const NOT_INHERITED = ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'UNFURL_QUEUE_PREFIX', 'LOG_LEVEL'];

/**
 * Starts a process with `env` (on top of this process's environment minus DATABASE_URL, REDIS_URL
 * and a few others: a child gets those only if `env` has them), listening on a free port, logging at
 * `info`. Resolves once a server answers /health, or a worker has logged that it runs. Rejects, with the output, if it exits first or
 * takes longer than `timeoutMs`.
 */
export async function startJobProcess(
  role: Role,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<JobProcess> {
  const childEnv: Record<string, string | undefined> = { ...process.env };
  for (const name of NOT_INHERITED) delete childEnv[name];
  Object.assign(childEnv, { PORT: '0', HOST: '127.0.0.1' }, env);
  // Readiness is read from the logs (and they explain failures), so a test env's "silent" is lifted.
  if (!childEnv.LOG_LEVEL || childEnv.LOG_LEVEL === 'silent') childEnv.LOG_LEVEL = 'info';
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/job-process.ts', role], {
    cwd: repoRoot,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  let done: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      done = { code, signal };
      resolve(done);
    }),
  );
  const proc: JobProcess = {
    role,
    pid: child.pid!,
    url: null,
    child,
    output: () => out,
    exited,
    alive: () => done === null,
    async kill9() {
      if (done) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (done) {
      throw new Error(
        `${role} (pid ${proc.pid}) exited ${JSON.stringify(done)} before it was ready:\n${out}`,
      );
    }
    if (Date.now() > deadline) {
      await proc.kill9();
      throw new Error(`${role} (pid ${proc.pid}) not ready within ${timeoutMs} ms:\n${out}`);
    }
    if (role === 'worker' && out.includes('"unfurl worker running"')) return proc;
    if (role === 'serve') {
      const m = /"address":"(http:\/\/[^"]+)"[^\n]*"msg":"unfurl listening"/.exec(out);
      if (m) {
        const url = m[1]!;
        const ok = await fetch(`${url}/health`)
          .then((r) => r.ok)
          .catch(() => false);
        if (ok) {
          proc.url = url;
          return proc;
        }
      }
    }
    await sleep(50);
  }
}

/** SIGKILLs every child still running (for afterEach/afterAll). */
export async function killAllJobProcesses(): Promise<void> {
  await Promise.all([...running].map((p) => p.kill9()));
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `probe` until it returns something other than undefined, or fails with `what`. */
export async function until<T>(
  what: string | (() => string | Promise<string>),
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const described = typeof what === 'string' ? what : await what();
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${described}`);
    }
    await sleep(everyMs);
  }
}

/** `promise`, or an error with `message()` if it has not settled within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test helper reading JSON answers
  body: any;
}

/** One JSON call to a spawned server. */
export async function api(
  baseUrl: string,
  method: 'GET' | 'POST',
  urlPath: string,
  opts: { key?: string; body?: unknown } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl}${urlPath}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

let counter = 0;

/** Registers a fresh account on a spawned server: its API key and id. */
export async function registerOn(baseUrl: string): Promise<{ apiKey: string; accountId: string }> {
  const email = `proc-${process.pid}-${Date.now()}-${++counter}@example.com`;
  const res = await api(baseUrl, 'POST', '/v1/auth/register', {
    body: { email, password: 'correct horse battery' },
  });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { apiKey: res.body.apiKey, accountId: res.body.accountId };
}

/** Removes the BullMQ keys of a test's queue prefix, so repeated runs leave nothing in Redis. */
export async function dropQueueKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Disposes a test env whose users (processes, stores, apps) have all been stopped. */
export async function disposeEnv(env: TestEnv): Promise<void> {
  if (env.env.DATABASE_URL) await waitForNoConnections(env.env.DATABASE_URL);
  if (env.env.REDIS_URL && env.env.UNFURL_QUEUE_PREFIX) {
    await dropQueueKeys(env.env.REDIS_URL, env.env.UNFURL_QUEUE_PREFIX);
  }
  await env.dispose();
}
