// What a new user of the `unfurl` binary meets first: the password prompt on a real terminal (shown,
// the password never echoed), --version, help for a mistyped command or option, `map`, `scrape --meta`,
// ISO times, the test-mode wording of `credits buy`, and a 402 that says how to buy credits.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/app.js';
import { CLI, ROOT, runCli } from '../support/cli.js';
import { PASSWORD, useCliServer } from '../support/cli-server.js';
import { hasPython, runOnPty } from '../support/pty.js';

const s = useCliServer('first');
const { user, registered } = s;

// Under CI a missing tool fails the test; elsewhere the test is skipped with the reason in its name.
const onPty = hasPython || process.env.CI === 'true' ? describe : describe.skip;

onPty(`the password prompt on a terminal${hasPython ? '' : ' (python3 is missing)'}`, () => {
  it('register shows the prompt, never the password, and saves the key', async () => {
    expect(hasPython, 'python3 (its pty module) is needed for this test').toBe(true);
    const u = user();
    const secret = 'hidden-Pa55word';
    const r = await runOnPty(
      [process.execPath, CLI, 'register', '--email', uniqueEmail('pty')],
      { ...u.env, PATH: process.env.PATH ?? '', HOME: u.dir },
      [
        ['Password', `${secret}\r`],
        ['Repeat the password', `${secret}\r`],
      ],
    );
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/Password \(not shown as you type\): <<typed>>/);
    expect(r.output).toMatch(/Repeat the password: <<typed>>/);
    expect(r.output).not.toContain(secret);
    expect(r.output).not.toMatch(/\*{4,}/);
    expect(r.output).toMatch(/Registered .* with 100 credits free\./);
    // The password typed is the one the account has: login with it works.
    const email = JSON.parse(fs.readFileSync(path.join(u.dir, 'unfurl', 'config.json'), 'utf8')).email;
    const login = await user().run('login', '--email', email, '--password', secret);
    expect(login.code, login.stderr).toBe(0);
  });

  it('backspace edits the hidden answer; Ctrl-C at the prompt stops without a request', async () => {
    const u = user();
    const r = await runOnPty(
      [process.execPath, CLI, 'register', '--email', uniqueEmail('pty')],
      { ...u.env, PATH: process.env.PATH ?? '', HOME: u.dir },
      [
        ['Password', 'correct horse batteryX\u007f\r'],
        ['Repeat', `${PASSWORD}\r`],
      ],
    );
    expect(r.code, r.output).toBe(0);
    const email = JSON.parse(fs.readFileSync(path.join(u.dir, 'unfurl', 'config.json'), 'utf8')).email;
    expect((await user().run('login', '--email', email, '--password', PASSWORD)).code).toBe(0);

    const stopped = await runOnPty(
      [process.execPath, CLI, 'register', '--email', uniqueEmail('pty')],
      { ...u.env, PATH: process.env.PATH ?? '', HOME: u.dir },
      [['Password', '\u0003']],
    );
    expect(stopped.code).toBe(2);
    expect(stopped.output).toMatch(/no password given/);
  });

  it('register asks for the password twice on a terminal and sends nothing when they differ', async () => {
    const u = user();
    const email = uniqueEmail('pty');
    const r = await runOnPty(
      [process.execPath, CLI, 'register', '--email', email],
      { ...u.env, PATH: process.env.PATH ?? '', HOME: u.dir },
      [
        ['Password', `${PASSWORD}\r`],
        ['Repeat', `${PASSWORD}!\r`],
      ],
    );
    expect(r.code, r.output).toBe(2);
    expect(r.output).toMatch(/the two passwords differ/);
    expect(fs.existsSync(path.join(u.dir, 'unfurl', 'config.json'))).toBe(false);
    // Nothing was registered: the same e-mail registers now.
    const later = await u.run('register', '--email', email, '--password', PASSWORD);
    expect(later.code, later.stderr).toBe(0);
    // Login asks once: the password exists already.
    const login = await runOnPty(
      [process.execPath, CLI, 'login', '--email', email],
      { ...u.env, PATH: process.env.PATH ?? '', HOME: u.dir },
      [['Password', `${PASSWORD}\r`]],
    );
    expect(login.code, login.output).toBe(0);
    expect(login.output).not.toMatch(/Repeat/);
  });
});

describe('finding the way', () => {
  it('--version prints the version of package.json', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-V', '-v']) {
      const r = await runCli([flag], {});
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(`unfurl ${version}`);
    }
  });

  it('an unknown command names the nearest one and points at --help, which lists them all', async () => {
    const r = await runCli(['scrap', 'https://example.com'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^unknown command "scrap" \(did you mean "scrape"\?\)\n`unfurl --help`/);
    const far = await runCli(['zzzzzzzz'], {});
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^unknown command "zzzzzzzz"\n/);
    const help = await runCli(['--help'], {});
    for (const name of [
      'serve',
      'worker',
      'migrate',
      'admin',
      'register',
      'scrape',
      'map',
      'crawl',
      'jobs',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
  });

  it('an unknown option names the nearest one', async () => {
    const u = await registered();
    const r = await u.run('usage', '--limt', '5');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option --limt \(did you mean --limit\?\)/);
    const far = await u.run('usage', '--frobnicate');
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/unknown option --frobnicate\n/);
  });
});

describe('commands', () => {
  it('map lists the links of a page, one a line, and --json gives {urls}', async () => {
    const u = await registered();
    const r = await u.run('map', `${s.site.url}/docs`, '--limit', '5', '--sitemap', 'skip');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(l).toMatch(new RegExp(`^${s.site.url}/docs`));
    const j = await u.run('map', `${s.site.url}/docs`, '--limit', '3', '--json');
    expect(JSON.parse(j.stdout).urls).toHaveLength(3);
    expect((await u.run('map', `${s.site.url}/docs`, '--sitemap', 'sometimes')).code).toBe(2);
  });

  it('scrape --meta prints the title and the credits charged on stderr; stdout stays the Markdown', async () => {
    const u = await registered();
    const r = await u.run('scrape', `${s.site.url}/docs/p/3`, '--meta');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^title\s+Page 3$/m);
    expect(r.stderr).toMatch(/^credits\s+1 credit$/m);
    expect(r.stdout).toMatch(/^# Page 3\n\nText of page number 3/);
    expect(r.stdout).not.toMatch(/credits/);
    const j = JSON.parse((await u.run('scrape', `${s.site.url}/docs/p/3`, '--meta', '--json')).stdout);
    expect(j).toMatchObject({ name: 'Page 3', creditsCharged: 1 });
  });

  it('jobs ID prints its times in ISO 8601', async () => {
    const u = await registered();
    const crawl = await u.run('crawl', `${s.site.url}/docs`, '--limit', '2', '--no-wait');
    expect(crawl.code, crawl.stderr).toBe(0);
    const jobId = crawl.stdout
      .trim()
      .split(/\s+/)
      .find((w) => w.startsWith('job_'))!;
    const r = await u.run('jobs', jobId);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^createdAt\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    expect(r.stdout).not.toMatch(/^\w+At\s+\d{12,}$/m);
  });

  it('credits buy on a test-mode server says no payment is taken', async () => {
    const u = await registered();
    const r = await u.run('credits', 'buy', 'credits_500');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Test mode: this server takes no payment/);
    expect(r.stdout).toMatch(/"Confirm test purchase" to add 500 credits for free/);
    expect(r.stdout).not.toMatch(/to pay/);
    expect(r.stdout).toMatch(/\/v1\/credits\/checkout\/chk_/);
  });

  it('a 402 suggests unfurl credits buy', async () => {
    // An empty account: a crawl short of credits is cut to the balance, so nothing at all is covered.
    const { apiKey, accountId } = await s.t.register();
    await s.t.services.ledger.clawback(accountId, 100, 'test: empty the account');
    const env = { ...user().env, UNFURL_API_KEY: apiKey };
    const poor = await runCli(['scrape', `${s.site.url}/docs/p/1`], env);
    expect(poor.code).toBe(4);
    expect(poor.stderr).toMatch(/the balance is 0 credits/);
    expect(poor.stderr).toMatch(/unfurl credits buy PACKAGE/);
  });
});
