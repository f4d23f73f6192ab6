// The real `unfurl` binary (node dist/main/cli.js) against a real server on a loopback socket:
// register/login saving the key (0600) in the config dir, the data commands in text and --json,
// crawl writing Markdown files, and the exit code of every failure family.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SITE_PAGES } from '../sdk/server.js';
import { uniqueEmail } from '../support/app.js';
import { confirmCheckoutAt } from '../support/checkout.js';
import { type CliResult, runCli } from '../support/cli.js';
import { PASSWORD, useCliServer } from '../support/cli-server.js';
import { startServer } from '../support/loopback.js';

const s = useCliServer('cli');
const { user, registered } = s;

const json = (r: CliResult) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('register and login', () => {
  it('register saves the key in $XDG_CONFIG_HOME/unfurl/config.json, mode 0600, and later commands use it', async () => {
    const u = await registered();
    const stat = fs.statSync(u.configFile);
    expect(stat.mode & 0o777).toBe(0o600);
    const saved = JSON.parse(fs.readFileSync(u.configFile, 'utf8'));
    expect(saved).toMatchObject({ baseUrl: s.url, email: u.email });
    expect(saved.apiKey).toMatch(/^uf_/);

    const credits = await u.run('credits');
    expect(credits.code, credits.stderr).toBe(0);
    expect(credits.stdout).toMatch(new RegExp(`^100 credits \\(${u.email}\\)`));
    expect(credits.stdout).toMatch(/credits_500\s+500\s+\$5\.00/);
    expect(json(await u.run('credits', '--json')).credits).toBe(100);
  });

  it('login makes a key for this machine and saves it; --api-key overrides the saved key', async () => {
    const u = await registered();
    const first = JSON.parse(fs.readFileSync(u.configFile, 'utf8')).apiKey;
    const other = user();
    const r = await other.run('login', '--email', u.email, '--password', PASSWORD, '--key-name', 'laptop');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/new API key "laptop"/);
    const second = JSON.parse(fs.readFileSync(other.configFile, 'utf8')).apiKey;
    expect(second).toMatch(/^uf_/);
    expect(second).not.toBe(first);
    expect(fs.statSync(other.configFile).mode & 0o777).toBe(0o600);
    // A wrong --api-key wins over the saved good one: refused (3).
    expect((await other.run('credits', '--api-key', 'uf_wrong')).code).toBe(3);
    // A bad password is an auth failure too.
    expect((await user().run('login', '--email', u.email, '--password', 'wrong password')).code).toBe(3);
  });

  it('login leaves no session behind; logout revokes the key login made, and only forgets any other', async () => {
    const u = await registered();
    const registeredKey = JSON.parse(fs.readFileSync(u.configFile, 'utf8')).apiKey as string;
    const laptop = user();
    expect((await laptop.run('login', '--email', u.email, '--password', PASSWORD)).code).toBe(0);
    const made = JSON.parse(fs.readFileSync(laptop.configFile, 'utf8')) as { apiKey: string; keyId: string };
    const call = (key: string, p: string) =>
      fetch(`${s.url}${p}`, { headers: { authorization: `Bearer ${key}` } });
    // The session login used to make the key was ended on the server.
    const live = (await (await call(registeredKey, '/v1/auth/sessions')).json()) as { sessions: unknown[] };
    expect(live.sessions).toEqual([]);

    const out = await laptop.run('logout');
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`Revoked key ${made.keyId}`);
    expect((await call(made.apiKey, '/v1/account')).status).toBe(401);
    expect(JSON.parse(fs.readFileSync(laptop.configFile, 'utf8')).apiKey).toBeUndefined();
    // A second logout has nothing left to end.
    expect((await laptop.run('logout')).code).toBe(0);

    // A key revoked elsewhere meanwhile: logout has nothing to end and says so.
    const desk = user();
    expect((await desk.run('login', '--email', u.email, '--password', PASSWORD)).code).toBe(0);
    const deskKeyId = JSON.parse(fs.readFileSync(desk.configFile, 'utf8')).keyId as string;
    const revoke = await fetch(`${s.url}/v1/keys/${deskKeyId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${registeredKey}` },
    });
    expect(revoke.status).toBe(200);
    const late = await desk.run('logout');
    expect(late.code, late.stderr).toBe(0);
    expect(late.stdout).toMatch(/already ended/);

    // The registration's key is the account's own: logout forgets it here and it stays valid.
    const forget = await u.run('logout');
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).toMatch(/stays valid/);
    expect((await call(registeredKey, '/v1/account')).status).toBe(200);
  });

  it('falls back to ~/.config/unfurl without XDG_CONFIG_HOME', async () => {
    const fakeHome = fs.mkdtempSync(path.join(s.home, 'home-'));
    const r = await runCli(['register', '--email', uniqueEmail('cli'), '--password', PASSWORD, '--json'], {
      HOME: fakeHome,
      UNFURL_API_URL: s.url,
    });
    const answer = json(r);
    expect(answer.configFile).toBe(path.join(fakeHome, '.config', 'unfurl', 'config.json'));
    expect(fs.statSync(answer.configFile).mode & 0o777).toBe(0o600);
  });
});

describe('data commands', () => {
  it('scrape prints the Markdown, or the whole page with --json', async () => {
    const u = await registered();
    const r = await u.run('scrape', `${s.site.url}/docs/p/7`);
    expect(r.code, r.stderr).toBe(0);
    // The page's h1 says its title: the Markdown starts with it, then the paragraph.
    expect(r.stdout).toBe('# Page 7\n\nText of page number 7, with some words to keep.\n');
    expect(json(await u.run('scrape', `${s.site.url}/docs/p/7`, '--json'))).toMatchObject({ name: 'Page 7' });
  });

  it('crawl writes every page as a Markdown file into --out, without a progress bar when not on a terminal', async () => {
    const u = await registered();
    const out = path.join(u.dir, 'site');
    const r = await u.run('crawl', `${s.site.url}/docs`, '--out', out, '--limit', '50', '--max-depth', '1');
    expect(r.code, r.stderr).toBe(0);
    // The summary ends with the time it took and what it cost (1 + 50 pages).
    const summary = r.stdout.trim();
    expect(summary.startsWith(`50 pages written to ${out} in `), summary).toBe(true);
    expect(summary).toMatch(/ in \d+\.\d s, 51 credits; job job_\w+$/);
    expect(r.stderr).toBe('');
    const files = fs.readdirSync(path.join(out, 'docs', 'p'));
    expect(fs.existsSync(path.join(out, 'docs.md'))).toBe(true);
    expect(files.length).toBe(49);
    const page = fs.readFileSync(path.join(out, 'docs', 'p', files[0]!), 'utf8');
    const n = files[0]!.replace('.md', '');
    expect(page).toMatch(new RegExp(`^---\\nurl: "${s.site.url}/docs/p/${n}"\\ntitle: "Page ${n}"\\n`));
    expect(page).toContain(`Text of page number ${n}`);

    // 150 pages cost more than the free credits: buy a package (test-mode checkout) first.
    const buy = await u.run('credits', 'buy', 'credits_500');
    expect(buy.code, buy.stderr).toBe(0);
    const checkoutUrl = new URL(buy.stdout.trim().split('\n').at(-1)!);
    const confirmed = await confirmCheckoutAt(s.url, checkoutUrl.href);
    expect(confirmed.status).toBe(200);
    const j = json(
      await u.run('crawl', `${s.site.url}/docs`, '--out', `${out}2`, '--limit', '150', '--json'),
    );
    expect(j).toMatchObject({
      status: 'completed',
      pages: SITE_PAGES + 1,
      out: `${out}2`,
      credits: SITE_PAGES + 2,
    });
    expect(j.elapsedMs).toBeGreaterThan(0);
    expect(j.files).toContain('docs/p/119.md');
  });

  it('jobs lists the jobs in a table, jobs ID shows one, usage lists transactions', async () => {
    const u = await registered();
    const crawl = json(await u.run('crawl', `${s.site.url}/docs/p/1`, '--limit', '1', '--no-wait', '--json'));
    expect(crawl.jobId).toMatch(/^job_/);
    const one = await waitDone(u.run, crawl.jobId);
    expect(one).toMatchObject({ id: crawl.jobId, queue: 'crawl', status: 'completed' });
    const table = await u.run('jobs');
    expect(table.code, table.stderr).toBe(0);
    const [header, row] = table.stdout.split('\n');
    expect(header).toMatch(/^ID\s+KIND\s+STATUS\s+CREATED\s+DURATION\s+CREDITS\s+URL\s+ERROR$/);
    expect(row).toMatch(new RegExp(`^${crawl.jobId}\\s+crawl\\s+completed\\s+\\d{4}-`));
    expect(json(await u.run('jobs', '--json')).jobs.map((j: { id: string }) => j.id)).toEqual([crawl.jobId]);
    const usage = await u.run('usage', '--limit', '50');
    expect(usage.code, usage.stderr).toBe(0);
    expect(usage.stdout).toMatch(/^WHEN\s+TYPE\s+AMOUNT\s+JOB\s+DESCRIPTION/);
    expect(usage.stdout).toMatch(/\bgrant\s+100\b/);
    expect(usage.stdout).toMatch(new RegExp(`settled\\s+-2\\s+${crawl.jobId}`));
  });

  it('transcript prints timed lines (or --text), video prints its fields (replay server)', async () => {
    const u = await registered();
    const t = await u.run('transcript', 'https://www.youtube.com/watch?v=GJLlxj_dtq8', '--mode', 'native');
    expect(t.code, t.stderr).toBe(0);
    const lines = t.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^\[\d+:\d{2}(:\d{2})?\] /);
    const text = await u.run('transcript', 'https://youtu.be/GJLlxj_dtq8', '--text', '--mode', 'native');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toMatch(/^\[/);
    expect(text.stdout.trim().length).toBeGreaterThan(50);
    const v = await u.run('video', 'GJLlxj_dtq8');
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^id\s+GJLlxj_dtq8$/m);
    expect(v.stdout).toMatch(/^title\s+\S/m);
    expect(json(await u.run('video', 'GJLlxj_dtq8', '--json')).id).toBe('GJLlxj_dtq8');
  });
});

async function waitDone(run: (...a: string[]) => Promise<CliResult>, jobId: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const job = json(await run('jobs', jobId, '--json'));
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} stuck in ${job.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('exit codes', () => {
  it('0 for help; 2 for usage errors, with the usage line', async () => {
    const help = await runCli(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/exit codes/);
    expect(help.stdout).toMatch(/crawl\s+crawl a site/);
    const u = await registered();
    for (const args of [
      ['crawl'],
      ['scrape', 'a', 'b'],
      ['crawl', 'x', '--limit', 'lots'],
      ['jobs', '--bogus'],
    ]) {
      const r = await u.run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/usage: unfurl /);
    }
    expect((await u.run('extract', 'https://example.com/v.mp4')).stderr).toMatch(/--prompt, --schema/);
  });

  it('3 without a key, 4 for insufficient credits, 5 for other 4xx, 6 for upstream failures', async () => {
    const nobody = user();
    const noKey = await nobody.run('credits');
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toMatch(/unfurl login/);

    const u = await registered();
    const empty = await s.t.register();
    await s.t.services.ledger.clawback(empty.accountId, 100, 'test: empty the account');
    const poor = await u.run('crawl', `${s.site.url}/docs`, '--limit', '5', '--api-key', empty.apiKey);
    expect(poor.code).toBe(4);
    expect(poor.stderr).toMatch(/insufficient_credits, HTTP 402, req_/);

    const missing = await u.run('jobs', 'job_doesnotexist');
    expect(missing.code).toBe(5);
    const invalid = await u.run('scrape', 'ftp://example.com/x', '--json');
    expect(invalid.code).toBe(5);
    expect(JSON.parse(invalid.stderr)).toMatchObject({ error: 'invalid_request', status: 400 });

    const broken = await u.run('scrape', `${s.site.url}/broken`);
    expect(broken.code).toBe(6);
    expect(broken.stderr).toMatch(/upstream_error, HTTP 502/);
  });

  it('7 when the server cannot be reached, 8 when the job fails', async () => {
    const gone = await startServer((_q, r) => r.end());
    const url = gone.url;
    await gone.close();
    const offline = await runCli(['credits', '--base-url', url, '--api-key', 'uf_x'], {});
    expect(offline.code).toBe(7);
    expect(offline.stderr).toMatch(/network_error/);

    const u = await registered();
    const failed = await u.run(
      'crawl',
      `${s.site.url}/no-such-start`,
      '--limit',
      '10',
      '--out',
      path.join(u.dir, 'none'),
    );
    expect(failed.code).toBe(8);
    expect(failed.stderr).toMatch(/failed: .*404/);
  });
});
