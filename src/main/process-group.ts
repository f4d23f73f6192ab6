// `unfurl serve --processes N`: N API processes on one port. Each is a plain `unfurl serve` that
// listens with SO_REUSEPORT, so the kernel spreads new connections over them — no proxy in front
// and no handle passing through this process, which serves nothing itself. It starts them, restarts
// one that dies, forwards SIGTERM/SIGINT and exits once they all have, and answers their requests for
// the group's metrics (metrics-group.ts), so /metrics counts every process whichever one is asked.
//
// Only the distributed deployment runs a group: the embedded one has one SQLite writer and runs
// its jobs in the API process, so several copies would each run a queue on the same file.
import { type ChildProcess, fork } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { type Config, ConfigError } from '../config.js';
import { answerGroupMetrics, isGroupMetricsRequest, routeMemberAnswer } from '../metrics-group.js';

/** The variable that tells a child it is member `i` of a group (and so listens with reusePort). */
export const GROUP_MEMBER_ENV = 'UNFURL_GROUP_MEMBER';

/** A member that dies within this long of its start counts as failing to start. */
const EARLY_EXIT_MS = 10_000;
/** Early deaths in a row, of any member, after which the group gives up (a setting every copy trips on). */
const MAX_EARLY_EXITS = 3;
const RESTART_DELAY_MS = 1_000;

type Log = (fields: Record<string, unknown>, message: string) => void;

/** `serve`'s own flags: `--processes N|auto`, `--processes=N`. Throws ConfigError naming the flag. */
export function parseServeArgs(args: string[]): { processes: number | 'auto' } {
  let processes: number | 'auto' = 1;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg];
    if (flag !== '--processes') {
      throw new ConfigError('serve', `unknown option "${arg}" (serve takes --processes N|auto)`);
    }
    const value = inline ?? args[++i];
    if (value === 'auto') processes = 'auto';
    else if (value !== undefined && /^[1-9]\d{0,2}$/.test(value) && Number(value) <= 256)
      processes = Number(value);
    else
      throw new ConfigError(
        '--processes',
        '--processes takes a whole number from 1 to 256, or auto (one per core)',
      );
  }
  return { processes };
}

/** How many API processes `serve` runs: `auto` is one per core; several need the distributed deployment. */
export function processCount(requested: number | 'auto', config: Config): number {
  const distributed = Boolean(config.redisUrl && config.databaseUrl);
  if (requested === 'auto') return distributed ? os.availableParallelism() : 1;
  if (requested > 1 && !distributed) {
    throw new ConfigError(
      '--processes',
      '--processes above 1 needs the distributed deployment (DATABASE_URL and REDIS_URL): the embedded one has one SQLite writer and runs its jobs in the API process',
    );
  }
  if (requested > 1 && config.port === 0) {
    throw new ConfigError('PORT', 'PORT=0 picks a port per process: give the group one port to share');
  }
  return requested;
}

/** The answer to a port something else holds: the same for one process and for a group. */
export const portInUse = (config: Config) =>
  new ConfigError(
    'PORT',
    `port ${config.port} on ${config.host} is already in use (another unfurl?): stop it, or start this one with PORT=<another port>`,
  );

/** Fails fast, with the usual message, when something already holds the port (a group would otherwise see N failures). */
async function assertPortFree(config: Config): Promise<void> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? portInUse(config) : err);
    });
    probe.listen({ port: config.port, host: config.host, exclusive: true }, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

export async function runProcessGroup(config: Config, count: number, log: Log): Promise<void> {
  await assertPortFree(config);
  const members: Array<ChildProcess | null> = new Array(count).fill(null);
  let stopping = false;
  let earlyExits = 0;
  const exited = new Set<number>();
  let allExited: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allExited = resolve;
  });
  let exitCode = 0;

  const start = (index: number) => {
    const startedAt = Date.now();
    const child = fork(process.argv[1]!, ['serve'], {
      env: { ...process.env, [GROUP_MEMBER_ENV]: String(index) },
      execArgv: process.execArgv,
      stdio: 'inherit',
    });
    members[index] = child;
    exited.delete(index);
    log({ member: index, memberPid: child.pid }, 'unfurl group: process started');
    child.on('message', (message) => {
      if (routeMemberAnswer(message)) return;
      if (isGroupMetricsRequest(message)) void answerGroupMetrics(members, child, message);
    });
    child.once('exit', (code, signal) => {
      exited.add(index);
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (exited.size === count) allExited();
        return;
      }
      const early = Date.now() - startedAt < EARLY_EXIT_MS;
      earlyExits = early ? earlyExits + 1 : 0;
      log({ member: index, memberPid: child.pid, code, signal }, 'unfurl group: process exited unexpectedly');
      if (earlyExits >= MAX_EARLY_EXITS) {
        log({ earlyExits }, 'unfurl group: processes keep dying at start; stopping the group');
        exitCode = 1;
        stop();
        return;
      }
      setTimeout(() => {
        if (!stopping) start(index);
      }, RESTART_DELAY_MS).unref();
    });
  };

  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const [index, child] of members.entries()) {
      if (child && !exited.has(index)) child.kill('SIGTERM');
    }
    if (exited.size === count) allExited();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let i = 0; i < count; i++) start(i);
  log({ processes: count, port: config.port }, 'unfurl group: serving one port from several processes');
  await done;
  process.exit(exitCode);
}
