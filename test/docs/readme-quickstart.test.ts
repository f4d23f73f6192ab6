// A claim in README is a test: the shell blocks of its "Quick start" (registering, the account, a scrape,
// buying credits and confirming the test-mode checkout) run as written with bash against a fresh server,
// and every `# {…}` line after a command has the shape of that command's real answer: its keys are there,
// and its values are, where the line spells one out (an elided `…` value matches any). The only change
// to the blocks is `B=`: the server's own address. https://example.com reaches a loopback stand-in
// through UNFURL_UPSTREAM_WEB (every web host goes there), so README's URL is used unchanged.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { closeTestApp } from '../support/teardown.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The text of README's `## title` section, up to the next `## ` heading. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The ```sh blocks of a piece of Markdown. */
const shellBlocks = (md: string) => [...md.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

interface Step {
  command: string;
  /** The `# {…}` answer written under the command, joined (continuation lines start `#  `). */
  answer: string | null;
}

/** A block's commands (lines joined at a trailing `\`), each with the answer line(s) under it. */
function steps(block: string): Step[] {
  const out: Step[] = [];
  const lines = block.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*#\s*\{/.test(line)) {
      let answer = line.replace(/^\s*#\s*/, '');
      while (i + 1 < lines.length && /^\s*#\s{2,}\S/.test(lines[i + 1]!))
        answer += lines[++i]!.replace(/^\s*#\s*/, '');
      const last = out[out.length - 1];
      if (!last) throw new Error(`an answer with no command before it: ${line}`);
      last.answer = answer;
      continue;
    }
    if (/^\s*(#|$)/.test(line)) continue;
    let command = line;
    while (command.endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]}`;
    out.push({ command, answer: null });
  }
  return out;
}

/**
 * The top-level key/value pairs a `# {…}` line spells out, values as written; a value holding `…` is
 * elided (any value matches; a string's text before the `…` is how the real one starts). Pure.
 */
function shape(answer: string): Array<{ key: string; raw: string }> {
  const out: Array<{ key: string; raw: string }> = [];
  let depth = 0;
  let i = 0;
  let key: string | null = null;
  let valueStart = -1;
  const end = (at: number) => {
    if (key !== null && valueStart >= 0) out.push({ key, raw: answer.slice(valueStart, at).trim() });
    key = null;
    valueStart = -1;
  };
  while (i < answer.length) {
    const c = answer[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < answer.length && answer[j] !== '"') j += answer[j] === '\\' ? 2 : 1;
      if (depth === 1 && key === null && valueStart < 0 && answer[j + 1] === ':') {
        key = answer.slice(i + 1, j);
        valueStart = j + 2;
        i = j + 2;
        continue;
      }
      i = j + 1;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 1) end(i);
      depth--;
    } else if (c === ',' && depth === 1) end(i);
    i++;
  }
  return out;
}

const MARK = '@@README-STEP-END@@';

/** Runs the steps in one bash (so variables carry over), answering each step's output. */
function runSteps(all: Step[], base: string): Promise<string[]> {
  const script = [
    'set -u',
    ...all.flatMap((s) => [/^B=/.test(s.command) ? `B=${base}` : s.command, `printf '\\n${MARK}\\n'`]),
  ].join('\n');
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { timeout: 15_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      const outputs = stdout.split(`\n${MARK}\n`).map((o) => o.trim());
      resolve(outputs.slice(0, all.length));
    });
  });
}

/** A free loopback port, so that the server's public URL (checkout URLs) is its real address. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** https://example.com as it answers (its page of 2025, unclosed paragraphs included). */
const EXAMPLE_DOMAIN =
  '<!doctype html><html lang="en"><head><title>Example Domain</title><meta name="viewport" ' +
  'content="width=device-width, initial-scale=1"><style>body{background:#eee;width:60vw;margin:15vh auto;' +
  'font-family:system-ui,sans-serif}h1{font-size:1.5em}div{opacity:0.8}a:link,a:visited{color:#348}</style>' +
  '<body><div><h1>Example Domain</h1><p>This domain is for use in documentation examples without needing ' +
  'permission. Avoid use in operations.<p><a href="https://iana.org/domains/example">Learn more</a></div></body></html>\n';

let t: TestApp;
let site: Loopback;
let base: string;

beforeAll(async () => {
  site = await startServer((req, res) => {
    if (req.url === '/robots.txt')
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\n');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(EXAMPLE_DOMAIN);
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await createTestApp({
    UNFURL_PUBLIC_URL: base,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_WEB: site.url,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await closeTestApp(t);
  await site?.close();
});

describe("README's quick start", () => {
  it('keeps `npm ci && npm start` and `npm test` at the top, saying how long the tests take', () => {
    const top = shellBlocks(readme.slice(0, readme.indexOf('\n## ')))[0] ?? '';
    expect(top).toMatch(/^npm ci && npm start\b/m);
    expect(top).toMatch(/^npm test\b.*\b\d+\+? ?min/m);
  });

  it('runs as written against a fresh server, each answer of the shape shown', async () => {
    const all = shellBlocks(section('Quick start')).flatMap(steps);
    expect(all.filter((s) => s.answer !== null).length).toBeGreaterThanOrEqual(4);
    expect(all.some((s) => s.command.includes('/v1/web/scrape?url=https://example.com'))).toBe(true);
    const outputs = await runSteps(all, base);
    all.forEach((step, i) => {
      if (step.answer === null) return;
      // The stand-in's address is where https://example.com went: the answer names the page by it.
      const output = (outputs[i] ?? '').replaceAll(site.url, 'https://example.com');
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(output);
      } catch {
        throw new Error(`\`${step.command}\` answered no JSON: ${output}`);
      }
      // The answers are written for a server on README's address; this one has its own.
      const written = step.answer.replaceAll('http://127.0.0.1:8080', base);
      const pairs = shape(written);
      expect(pairs.length, written).toBeGreaterThan(0);
      for (const { key, raw } of pairs) {
        expect(body, `\`${step.command}\`: key "${key}"`).toHaveProperty(key);
        if (!raw.includes('…')) {
          expect(body[key], `\`${step.command}\`: value of "${key}"`).toEqual(JSON.parse(raw));
        } else if (raw.startsWith('"')) {
          const prefix = JSON.parse(`${raw.slice(0, raw.indexOf('…'))}"`) as string;
          expect(
            String(body[key]).startsWith(prefix),
            `${key}: ${String(body[key])} starts with ${prefix}`,
          ).toBe(true);
        }
      }
    });
    // Step 6's words: the purchase, the scrape's hold, release and charge, and the grant, newest first.
    const usage = outputs[all.findIndex((s) => s.command.includes('/v1/account/usage'))] ?? '';
    const rows = (
      JSON.parse(usage) as { transactions: Array<{ type: string; amount: number; job_id: string | null }> }
    ).transactions;
    expect(rows.map((r) => `${r.type} ${r.amount}`).sort()).toEqual(
      ['grant 100', 'hold -1', 'purchase 500', 'release 1', 'settled -1'].sort(),
    );
    expect(rows[0]?.type).toBe('purchase');
    expect(rows[rows.length - 1]?.type).toBe('grant');
    const scrape = rows.filter((r) => ['hold', 'release', 'settled'].includes(r.type));
    expect(new Set(scrape.map((r) => r.job_id)).size).toBe(1);
    expect(scrape[0]?.job_id).toMatch(/^req_/);
    expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(599);
  }, 20_000);
});
