// CPU time spent by this process, the local Redis server and the PostgreSQL backends of one
// database, between two snapshots — "where the time goes" on a machine whose wall-clock numbers
// are noisy (shared cores). Linux /proc only; elsewhere the servers read as 0.
import fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface CpuSplit {
  nodeMs: number;
  redisMs: number;
  postgresMs: number;
}

function procTicks(pid: string): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command: state is 3rd, utime 14th, stime 15th.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return 0;
  }
}

/**
 * CPU milliseconds of this process's main thread (the event loop) so far, at 10 ms resolution; its
 * helper threads (a SQLite checkpointer, GC, the libuv pool) are left out. Linux only; 0 elsewhere.
 */
export function eventLoopThreadCpuMs(): number {
  return procTicks(`${process.pid}/task/${process.pid}`) * TICK_MS;
}

function matching(test: (cmdline: string) => boolean): Map<string, number> {
  const out = new Map<string, number>();
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  for (const pid of pids) {
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (test(cmd)) out.set(pid, procTicks(pid));
  }
  return out;
}

/** Starts measuring; the answer's `stop()` gives the CPU milliseconds used since. */
export function cpuMeter(pgDatabase: string | null) {
  const node0 = process.cpuUsage();
  const servers = () => ({
    redis: matching((c) => c.startsWith('redis-server')),
    // Backends name their database; WAL writing for everyone is left out (shared server).
    pg: pgDatabase ? matching((c) => c.startsWith('postgres:') && c.includes(` ${pgDatabase} `)) : new Map(),
  });
  const before = servers();
  const delta = (a: Map<string, number>, b: Map<string, number>) => {
    let ticks = 0;
    for (const [pid, t] of b) ticks += t - (a.get(pid) ?? 0);
    return ticks * TICK_MS;
  };
  return {
    stop(): CpuSplit {
      const n = process.cpuUsage(node0);
      const after = servers();
      return {
        nodeMs: (n.user + n.system) / 1000,
        redisMs: delta(before.redis, after.redis),
        postgresMs: delta(before.pg, after.pg),
      };
    },
  };
}
