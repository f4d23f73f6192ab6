// What `unfurl serve` says when it starts: readable lines on a terminal (LOG_FORMAT=pretty here, as a
// terminal would get by default) and JSON otherwise, the dashboard and /docs URLs, a warning while
// UNFURL_ALLOW_PRIVATE_NETWORK is on, and one line (exit 1) when its port is taken.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/main/log-format.js';
import { ensureBuilt } from '../support/cli.js';
import { runCli, startCli } from './cli-processes.js';

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-serve-start-'));
}, 300_000);
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const dataDir = () => fs.mkdtempSync(path.join(dir, 'data-'));

describe('readable log lines', () => {
  it('turn a JSON line into time, level, message and key=value fields', () => {
    const line = JSON.stringify({
      level: 40,
      time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      pid: 1,
      hostname: 'h',
      msg: 'slow upstream',
      req: { method: 'GET', url: '/v1/web/scrape' },
      note: 'two words',
    });
    expect(formatLogLine(line, false)).toBe(
      '03:04:05.678 WARN  slow upstream  req.method=GET req.url=/v1/web/scrape note="two words"\n',
    );
    const colour = formatLogLine(line, true);
    expect(colour).toContain('\u001b[33mWARN \u001b[0m');
  });

  it('put an error stack under its line, and pass anything that is not JSON through', () => {
    const line = JSON.stringify({
      level: 50,
      time: 0,
      msg: 'boom',
      err: { message: 'x', stack: 'Error: x\n  at f' },
    });
    expect(formatLogLine(line, false)).toBe('00:00:00.000 ERROR boom\n    Error: x\n      at f\n');
    expect(formatLogLine('plain text', false)).toBe('plain text\n');
  });
});

describe('unfurl serve at start', () => {
  it('on a terminal: readable lines with the dashboard and /docs URLs, no JSON', async () => {
    const p = await startCliReadable();
    try {
      const out = p.output;
      expect(out).toMatch(
        /^\d\d:\d\d:\d\d\.\d{3} INFO {2}unfurl listening {2}address=http:\/\/127\.0\.0\.1:\d+/m,
      );
      expect(out).toMatch(
        /INFO {2}dashboard: http:\/\/127\.0\.0\.1:\d+\/ {2}· {2}API docs: http:\/\/127\.0\.0\.1:\d+\/docs/,
      );
      expect(out).not.toMatch(/^\{"level"/m);
    } finally {
      await p.stop();
    }
  }, 120_000);

  it('elsewhere: JSON lines carrying the URLs; a warning while UNFURL_ALLOW_PRIVATE_NETWORK is on', async () => {
    const p = await startCli('serve', { UNFURL_DATA_DIR: dataDir(), UNFURL_ALLOW_PRIVATE_NETWORK: 'true' });
    try {
      const lines = p
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      const listening = lines.find((l) => l.msg === 'unfurl listening');
      expect(listening).toMatchObject({ dashboard: `${p.url}/`, docs: `${p.url}/docs` });
      const warning = lines.find((l) => /UNFURL_ALLOW_PRIVATE_NETWORK is on/.test(l.msg));
      expect(warning?.level).toBe(40);
    } finally {
      await p.stop();
    }
    const quiet = await startCli('serve', { UNFURL_DATA_DIR: dataDir() });
    try {
      expect(quiet.output()).not.toContain('UNFURL_ALLOW_PRIVATE_NETWORK');
    } finally {
      await quiet.stop();
    }
  }, 120_000);

  it('a port already taken: one line saying so, exit 1, no stack', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const r = runCli(['serve'], { PORT: String(port), UNFURL_DATA_DIR: dataDir(), LOG_FORMAT: 'json' });
      expect(r.status).toBe(1);
      const errLines = r.stderr.trim().split('\n');
      expect(errLines).toEqual([
        `configuration PORT: port ${port} on 127.0.0.1 is already in use (another unfurl?): stop it, or start this one with PORT=<another port>`,
      ]);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  }, 120_000);
});

/** `unfurl serve` with LOG_FORMAT=pretty until its URLs are logged; the test stops it. */
async function startCliReadable() {
  const { spawn } = await import('node:child_process');
  const { CLI } = await import('./cli-processes.js');
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(DATABASE_URL|REDIS_URL|PORT|HOST|UNFURL_.*|LOG_.*|STRIPE_.*)$/.test(k)) env[k] = v;
  }
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'pretty', UNFURL_DATA_DIR: dataDir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const deadline = Date.now() + 60_000;
  while (!/API docs: /.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    get output() {
      return output;
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
