// The production binary as plain processes: `node dist/main/cli.js serve|worker|migrate` with a
// given environment (nothing inherited that could point it at another database or Redis), ready
// once a server answers /health or a worker has logged that it runs.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, sleep } from '../support/job-processes.js';

export const CLI = path.join(repoRoot, 'dist', 'main', 'cli.js');

export interface CliProcess {
  role: 'serve' | 'worker';
  child: ChildProcess;
  /** Base URL of a server (null for a worker). */
  url: string | null;
  output(): string;
  /** SIGTERM (graceful drain), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Variables of the test process that a child must not inherit. */
const NOT_INHERITED = /^(DATABASE_URL|REDIS_URL|PORT|HOST|UNFURL_.*|LOG_LEVEL|STRIPE_.*)$/;

function childEnv(env: Record<string, string>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!NOT_INHERITED.test(k)) out[k] = v;
  return { ...out, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
}

export function assertBuilt(): void {
  if (!fs.existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it first)`);
}

/** `unfurl <args>` to completion: exit status and output. */
export function runCli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: repoRoot,
    env: childEnv(env),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export async function startCli(
  role: 'serve' | 'worker',
  env: Record<string, string>,
  timeoutMs = 60_000,
  args: string[] = [],
): Promise<CliProcess> {
  const child = spawn(process.execPath, [CLI, role, ...args], {
    cwd: repoRoot,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  let exited = false;
  const done = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const proc: CliProcess = {
    role,
    child,
    url: null,
    output: () => out,
    async stop(graceMs = 10_000) {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await done;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) throw new Error(`unfurl ${role} exited before it was ready:\n${out}`);
    if (Date.now() > deadline) {
      await proc.stop(0);
      throw new Error(`unfurl ${role} not ready within ${timeoutMs} ms:\n${out}`);
    }
    if (role === 'worker' && out.includes('"unfurl worker running"')) return proc;
    if (role === 'serve') {
      const m = /"address":"(http:\/\/[^"]+)"[^\n]*"msg":"unfurl listening"/.exec(out);
      if (
        m &&
        (await fetch(`${m[1]}/health`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        proc.url = m[1]!;
        return proc;
      }
    }
    await sleep(50);
  }
}

export { freePort } from '../support/sockets.js';
