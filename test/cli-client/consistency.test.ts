// The CLI agreeing with itself (issue 35): help that lines up, a typo answered in two lines, `-v`,
// bare domains for the web commands, logins that revoke the key the previous login made, a crawl's
// pages fetched later by its job id, and errors that point at the CLI's own commands (an unknown
// package, an e-mail that has an account, a crawl bigger than the balance).
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_COMMAND_NAMES } from '../../src/main/client/names.js';
import { ROOT, runCli } from '../support/cli.js';
import { PASSWORD, useCliServer } from '../support/cli-server.js';
import { type Loopback, startServer } from '../support/loopback.js';

const s = useCliServer('agree');
const { user, registered } = s;

const status = async (key: string) =>
  (await fetch(`${s.url}/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status;

describe('help and names', () => {
  it("every command's --help has its option descriptions in one column", async () => {
    for (const name of CLIENT_COMMAND_NAMES) {
      const r = await runCli([name, '--help'], {});
      expect(r.code, name).toBe(0);
      // `  --term ARG   description`: where each description starts.
      const columns = r.stdout
        .split('\n')
        .map((l) => /^ {2}(\S+(?: \S+)*) {2,}(?=\S)/.exec(l)?.[0].length)
        .filter((c): c is number => c !== undefined);
      expect(columns.length, name).toBeGreaterThan(2);
      expect(new Set(columns).size, `${name} --help:\n${r.stdout}`).toBe(1);
      // A description's second line starts in the same column.
      for (const l of r.stdout.split('\n').filter((x) => /^ {4,}\S/.test(x))) {
        expect(l.length - l.trimStart().length, `${name}: ${l}`).toBe(columns[0]);
      }
    }
  });

  it('a mistyped command answers the nearest name and where the list is, not the whole help', async () => {
    const r = await runCli(['scrap', 'https://example.com'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'unknown command "scrap" (did you mean "scrape"?)\n`unfurl --help` lists the commands\n',
    );
    const far = await runCli(['zzzzzzzz'], {});
    expect(far.code).toBe(2);
    expect(far.stderr.trim().split('\n')).toHaveLength(2);
    expect(far.stderr).not.toMatch(/^ {2}serve /m);
  });

  it('-v prints the version, as --version does', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const r = await runCli(['-v'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`unfurl ${version}\n`);
  });
});

describe('bare domains for scrape, map and crawl', () => {
  let recorder: Loopback;
  const seen: { method: string; url: string; body: string }[] = [];

  beforeAll(async () => {
    recorder = await startServer((req: http.IncomingMessage, res: http.ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body });
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        const p = new URL(req.url ?? '/', 'http://x').pathname;
        if (p === '/v1/web/scrape') {
          const url = new URL(req.url!, 'http://x').searchParams.get('url');
          return json(200, {
            url,
            content: 'Hello.',
            name: 'Example',
            description: null,
            ogUrl: null,
            countCharacters: 6,
            urls: [],
          });
        }
        if (p === '/v1/web/map') return json(200, { urls: ['https://example.com/a'] });
        if (p === '/v1/web/crawl') return json(202, { jobId: 'job_recorded0000000000' });
        return json(404, { error: 'not_found', message: 'no' });
      });
    });
  });
  afterAll(async () => recorder?.close());

  const cli = (...args: string[]) =>
    runCli([...args, '--base-url', recorder.url, '--api-key', 'uf_recorded'], { HOME: s.home });

  it('a domain without a scheme is sent as https://', async () => {
    const scraped = await cli('scrape', 'example.com');
    expect(scraped.code, scraped.stderr).toBe(0);
    expect(scraped.stdout).toBe('Hello.\n');
    const mapped = await cli('map', 'docs.example.com/guide?x=1');
    expect(mapped.code, mapped.stderr).toBe(0);
    const crawled = await cli('crawl', 'example.com/blog', '--no-wait', '--json');
    expect(crawled.code, crawled.stderr).toBe(0);
    const sent = seen.map((r) =>
      r.method === 'GET' ? new URL(r.url, 'http://x').searchParams.get('url') : JSON.parse(r.body).url,
    );
    expect(sent).toEqual([
      'https://example.com',
      'https://docs.example.com/guide?x=1',
      'https://example.com/blog',
    ]);
  });

  it('garbage is refused before any request, saying what a URL looks like', async () => {
    const before = seen.length;
    for (const [command, arg] of [
      ['scrape', 'hello world'],
      ['map', 'nonsense'],
      ['crawl', 'mailto:someone@example.com'],
    ] as const) {
      const r = await cli(command, arg);
      expect(r.code, `${command} ${arg}`).toBe(2);
      expect(r.stderr).toMatch(/is not (a|an http\(s\)) URL \(expected an http\(s\) URL or a domain, e\.g\./);
    }
    expect(seen.length).toBe(before);
  });
});

describe('login and register', () => {
  it('a second login revokes the key the first one made; a key login did not make stays valid', async () => {
    const u = await registered();
    const registeredKey = u.saved().apiKey as string;
    // Login over the registration's key: that key is the user's own, never revoked.
    const first = await u.run('login', '--email', u.email, '--password', PASSWORD);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toMatch(/Revoked/);
    expect(await status(registeredKey)).toBe(200);
    const made = u.saved() as { apiKey: string; keyId: string };

    const second = await u.run('login', '--email', u.email, '--password', PASSWORD, '--json');
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).revokedKeyId).toBe(made.keyId);
    expect(await status(made.apiKey)).toBe(401);
    const now = u.saved() as { apiKey: string; keyId: string; keyMadeByLogin: boolean };
    expect(now.keyMadeByLogin).toBe(true);
    expect(await status(now.apiKey)).toBe(200);

    // The key list holds the registration's key and the latest login's, not one per login.
    const keys = (await (
      await fetch(`${s.url}/v1/keys`, { headers: { authorization: `Bearer ${registeredKey}` } })
    ).json()) as { keys: { id: string; revokedAt?: number | null }[] };
    const live = keys.keys.filter((k) => !k.revokedAt).map((k) => k.id);
    expect(live).toContain(now.keyId);
    expect(live).not.toContain(made.keyId);

    // Saving a key given with --api-key over it: the login-made key is revoked, the given one kept.
    const third = await u.run('login', '--api-key', registeredKey);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain(`Revoked ${now.keyId}`);
    expect(await status(now.apiKey)).toBe(401);
    expect(await status(registeredKey)).toBe(200);
    // And login over that given key leaves it alone.
    expect((await u.run('login', '--email', u.email, '--password', PASSWORD)).code).toBe(0);
    expect(await status(registeredKey)).toBe(200);
  });

  it('register with an e-mail that has an account hints at unfurl login --email', async () => {
    const u = await registered();
    const again = await user().run('register', '--email', u.email, '--password', PASSWORD);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain(`unfurl login --email ${u.email}`);
  });
});

describe('crawl job ids', () => {
  it('the summary names the job; a --no-wait crawl is written as files later with --job', async () => {
    const u = await registered();
    const out = path.join(u.dir, 'now');
    const r = await u.run('crawl', `${s.site.url}/docs`, '--limit', '3', '--max-depth', '1', '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^3 pages written to .* 4 credits; job job_\w+\n$/);

    const started = await u.run('crawl', `${s.site.url}/docs`, '--limit', '4', '--no-wait');
    expect(started.code, started.stderr).toBe(0);
    const jobId = started.stdout.trim();
    expect(jobId).toMatch(/^job_\w+$/);
    expect(started.stderr).toContain(`unfurl crawl --job ${jobId}`);

    const later = path.join(u.dir, 'later');
    const fetched = await u.run('crawl', '--job', jobId, '--out', later);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout).toContain(`4 pages written to ${later}`);
    expect(fetched.stdout).toContain(`job ${jobId}`);
    expect(fs.existsSync(path.join(later, 'docs.md'))).toBe(true);
    expect(fs.readdirSync(path.join(later, 'docs', 'p'))).toHaveLength(3);
    // Fetching again writes the same pages and costs nothing more.
    const again = await u.run('crawl', '--job', jobId, '--out', path.join(u.dir, 'again'), '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ jobId, pages: 4, credits: 5, status: 'completed' });

    // `jobs ID` says how to get the pages; --help documents --job.
    expect((await u.run('jobs', jobId)).stdout).toContain(`unfurl crawl --job ${jobId} --out DIR`);
    expect((await u.run('crawl', '--help')).stdout).toMatch(/^ {2}--job ID +no new crawl/m);
    // --job is for crawls only, and takes no URL.
    expect((await u.run('crawl', '--job', jobId, `${s.site.url}/docs`)).code).toBe(2);
  });
});

describe('errors that point at the CLI', () => {
  it('an unknown package points at `unfurl credits`, not the HTTP route', async () => {
    const u = await registered();
    const r = await u.run('credits', 'buy', 'credits_5');
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/unknown package "credits_5"/);
    expect(r.stderr).toContain('`unfurl credits`');
    expect(r.stderr).not.toContain('/v1/credits/packages');
  });

  it('a crawl the balance cannot start says what a crawl needs and how to buy credits', async () => {
    const { apiKey, accountId } = await s.t.register();
    await s.t.services.ledger.clawback(accountId, 100, 'test: empty the account');
    const env = { XDG_CONFIG_HOME: user().dir, UNFURL_API_URL: s.url, UNFURL_API_KEY: apiKey };
    const r = await runCli(['crawl', `${s.site.url}/docs`, '--limit', '5'], env);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/at least 2 credits/);
    expect(r.stderr).toMatch(/unfurl credits buy PACKAGE/);
    expect(r.stderr).not.toContain('/v1/credits/');
  });
});
