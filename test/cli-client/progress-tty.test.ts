// `unfurl crawl` on a terminal draws a progress bar while the job runs. The binary runs under a real
// pseudo-terminal made by util-linux `script`, against a real server and a slow loopback website,
// so the crawl lasts long enough to be drawn several times.
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientTestServer, SITE_PAGES, startClientTestServer } from '../sdk/server.js';
import { uniqueEmail } from '../support/app.js';
import { CLI, ROOT, runCli } from '../support/cli.js';
import { ensureClientBuilt } from './binary.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
// Under CI a missing tool fails the test; elsewhere the test is skipped with the reason in its name.
const maybe = hasScript || process.env.CI === 'true' ? describe : describe.skip;

let s: ClientTestServer;
let dir: string;

beforeAll(async () => {
  await ensureClientBuilt();
  // 40 ms a page, 2 pages at a time: the crawl takes a few seconds.
  s = await startClientTestServer(
    { UNFURL_CRAWL_CONCURRENCY: '2', UNFURL_CRAWL_HOST_CONCURRENCY: '2' },
    { siteDelayMs: 40 },
  );
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-tty-'));
}, 300_000);
afterAll(async () => {
  await s?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

/** Runs the binary with a pseudo-terminal as its stdin, stdout and stderr; answers all it wrote. */
function underPty(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    execFile(
      'script',
      ['-qfec', command, '/dev/null'],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ...env }, timeout: 90_000 },
      (err, stdout) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, output: stdout }),
    );
  });
}

maybe(`crawl progress bar on a pseudo-terminal${hasScript ? '' : ' (util-linux script is missing)'}`, () => {
  it('redraws a bar with the pages written while the crawl runs, then prints the summary', async () => {
    expect(hasScript, 'util-linux `script` is needed for this test').toBe(true);
    const env = { XDG_CONFIG_HOME: path.join(dir, 'cfg'), UNFURL_API_URL: s.url };
    const reg = await runCli(
      ['register', '--email', uniqueEmail('tty'), '--password', 'correct horse battery'],
      env,
    );
    expect(reg.code, reg.stderr).toBe(0);
    const out = path.join(dir, 'pages');
    const started = Date.now();
    const r = await underPty(['crawl', `${s.site.url}/docs`, '--out', out, '--limit', '60'], env);
    const elapsed = Date.now() - started;
    expect(r.code, r.output).toBe(0);
    // Every redraw returns to the start of the line and clears it.
    const frames = r.output.split('\r\x1b[2K').filter((f) => /^\[[#-]{30}\] \d+\/60 pages/.test(f));
    expect(frames.length, r.output).toBeGreaterThanOrEqual(2);
    const counts = frames.map((f) => Number(/\] (\d+)\/60/.exec(f)![1]));
    // The bar moves forward as pages arrive, and fills in proportion.
    expect(counts.at(-1)!).toBeGreaterThan(counts[0]!);
    for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThanOrEqual(counts[i - 1]!);
    for (const f of frames) {
      const n = Number(/\] (\d+)\/60/.exec(f)![1]);
      expect(f.slice(1, 31).split('#').length - 1).toBe(Math.min(30, Math.round((n / 60) * 30)));
    }
    expect(r.output).toMatch(/pages {2}(queued|active|completed)/);
    expect(r.output).toContain(`60 pages written to ${out}`);
    expect(fs.readdirSync(path.join(out, 'docs', 'p')).length).toBe(59);
    expect(SITE_PAGES).toBeGreaterThan(60);
    expect(elapsed).toBeLessThan(60_000);
  });

  it('draws nothing with --json, even on a terminal', async () => {
    const env = { XDG_CONFIG_HOME: path.join(dir, 'cfg'), UNFURL_API_URL: s.url };
    const r = await underPty(
      ['crawl', `${s.site.url}/docs/p/1`, '--limit', '1', '--json', '--out', path.join(dir, 'j')],
      env,
    );
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain('\r\x1b[2K');
    expect(JSON.parse(r.output.replace(/\r\n/g, '\n'))).toMatchObject({ status: 'completed', pages: 1 });
  });
});

describe('crawl --timeout', () => {
  it('stops waiting after --timeout seconds with exit code 8, keeping the pages written so far', async () => {
    const env = { XDG_CONFIG_HOME: path.join(dir, 'cfg-timeout'), UNFURL_API_URL: s.url };
    const reg = await runCli(
      ['register', '--email', uniqueEmail('tty'), '--password', 'correct horse battery'],
      env,
    );
    expect(reg.code, reg.stderr).toBe(0);
    // 99 pages at 40 ms, two at a time, take about 2 s: more than the 1 s allowed.
    const out = path.join(dir, 'slow');
    const started = Date.now();
    const r = await runCli(
      ['crawl', `${s.site.url}/docs`, '--limit', '99', '--timeout', '1', '--out', out],
      env,
    );
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(/did not end within 1 s \(\d+ pages written to /);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('Ctrl-C', () => {
  it('stops a running crawl at once with exit code 130', async () => {
    const env = { XDG_CONFIG_HOME: path.join(dir, 'cfg-sigint'), UNFURL_API_URL: s.url };
    const reg = await runCli(
      ['register', '--email', uniqueEmail('int'), '--password', 'correct horse battery'],
      env,
    );
    expect(reg.code, reg.stderr).toBe(0);
    const child = spawn(
      process.execPath,
      [CLI, 'crawl', `${s.site.url}/docs`, '--limit', '99', '--out', path.join(dir, 'int')],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Once the job exists (the output folder is made right after it is accepted), interrupt.
    const deadline = Date.now() + 20_000;
    while (!fs.existsSync(path.join(dir, 'int')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const sent = Date.now();
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('interrupted');
    expect(Date.now() - sent).toBeLessThan(2000);
  });
});
