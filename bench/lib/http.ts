// HTTP load measurement shared by the benchmarks: a server in a child process (bench/lib/server.ts)
// and autocannon in this one, so on a small machine client and server each get their own core and
// event loop — the same for the baseline and for Unfurl.
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { ServerKind } from './server.js';

export const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
};

export interface LoadSettings {
  connections: number;
  durationS: number;
  warmupS: number;
  pipelining: number;
}

/** Defaults, overridable with BENCH_CONNECTIONS, BENCH_DURATION, BENCH_WARMUP (seconds). */
export function loadSettings(): LoadSettings {
  return {
    connections: intEnv('BENCH_CONNECTIONS', 50),
    durationS: intEnv('BENCH_DURATION', 10),
    warmupS: intEnv('BENCH_WARMUP', 3),
    pipelining: 1,
  };
}

export const describeLoad = (s: LoadSettings) =>
  `autocannon ${s.connections} connections × ${s.durationS} s after ${s.warmupS} s warm-up, pipelining ${s.pipelining}`;

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** The server's CPU time (user + system) per request, when `measure` was given the server. */
  cpuUsPerRequest?: number;
}

export interface ChildServer {
  /** `http://127.0.0.1:<port>` */
  address: string;
  /** The child's first message, whole (`{ address, … }`). */
  hello: Record<string, unknown>;
  pid: number;
  /** Sends `message`; answers the child's next message. */
  ask<T>(message: string): Promise<T>;
  stop(): Promise<void>;
}

/** Starts a benchmark server in a child process; `env` is its whole configuration. */
export function startServer(kind: ServerKind, env: Record<string, string> = {}): Promise<ChildServer> {
  return startChild(new URL('./server.ts', import.meta.url), [kind], env);
}

/**
 * Binds a process (all its threads) to one CPU with taskset, so that a server and its load generator
 * do not take turns on the same cores; false where that cannot be done.
 */
export function pinToCpu(pid: number, cpu: number): boolean {
  return pinToCpus(pid, String(cpu));
}

/** Pins every thread of `pid` to `cpus` (taskset's list: "0", "0,1", "0-3"). */
export function pinToCpus(pid: number, cpus: string): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' }).status === 0;
}

/**
 * Forks `script` (a TypeScript module that listens, then sends `{ address }` over IPC and exits on
 * 'stop'), with `args` and `env` as its whole environment; answers once it listens.
 */
export async function startChild(
  script: URL,
  args: string[],
  env: Record<string, string> = {},
): Promise<ChildServer> {
  const label = `${fileURLToPath(script)} ${args[0] ?? ''}`.trim();
  const cpuProfDir = process.env.BENCH_CPU_PROF;
  const child: ChildProcess = fork(fileURLToPath(script), args, {
    // BENCH_CPU_PROF=<dir>: each server writes a V8 CPU profile there when it stops.
    execArgv: ['--import', 'tsx', ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [])],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = <T>(what: string, withinS: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${label} did not ${what} within ${withinS} s`)),
        withinS * 1000,
      );
      child.once('message', (m) => {
        clearTimeout(timer);
        resolve(m as T);
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${label} exited with code ${code} before it could ${what}`));
      });
    });
  // Starting compiles the app's modules: minutes on a busy 2-core machine.
  const hello = await next<{ address: string } & Record<string, unknown>>('start', 180);
  return {
    address: hello.address,
    hello,
    pid: child.pid!,
    ask<T>(message: string) {
      const answer = next<T>('answer', 60);
      child.send(message);
      return answer;
    },
    async stop() {
      if (child.connected) child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A bench child's side of `serverCpuUs`: answers the message 'cpu' with `{ cpuUs }`, its CPU time so far. */
export function answerCpuQuestions(): void {
  process.on('message', (m) => {
    if (m !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send!({ cpuUs: user + system });
  });
}

/** The CPU time (user + system, µs) a bench child has used so far; 0 without one. */
export async function serverCpuUs(server?: Pick<ChildServer, 'ask'>): Promise<number> {
  return server ? (await server.ask<{ cpuUs: number }>('cpu')).cpuUs : 0;
}

/**
 * Warms up, then measures GET `url`; throws if any answer is not 2xx (the number would be meaningless).
 * Given the `server` (a child of bench/lib/server.ts), also its CPU time per request: a machine
 * shared with other work skews that far less than the rate.
 */
export async function measure(
  url: string,
  headers: Record<string, string>,
  s: LoadSettings,
  server?: ChildServer,
): Promise<LoadResult> {
  const base = { url, headers, connections: s.connections, pipelining: s.pipelining };
  await autocannon({ ...base, duration: s.warmupS });
  const cpuBefore = await serverCpuUs(server);
  const r = (await autocannon({ ...base, duration: s.durationS })) as Awaited<
    ReturnType<typeof autocannon>
  > & { requests: { sent: number } };
  const cpuUs = (await serverCpuUs(server)) - cpuBefore;
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0) {
    throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts under load`);
  }
  const result: LoadResult = { rps: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99 };
  if (server) result.cpuUsPerRequest = cpuUs / r.requests.sent;
  return result;
}

export const formatLoad = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms.toFixed(1).padStart(5)} ms   p99 ${r.p99Ms
    .toFixed(1)
    .padStart(5)} ms`;
