// A claim in README is a test: the JavaScript of README's "Coming from Firecrawl" runs as written with
// Node against a real server; the only change is the server's address. https://example.com reaches a
// loopback stand-in through UNFURL_UPSTREAM_WEB (every web host goes there).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { closeTestApp } from '../support/teardown.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const section = readme.slice(
  readme.indexOf('\n## Coming from Firecrawl\n'),
  readme.indexOf('\n## LLM agents'),
);
const script = /```js\n([\s\S]*?)```/.exec(section)?.[1];

let site: Loopback;
let t: TestApp;
let base: string;

beforeAll(async () => {
  site = await startServer((_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<html><head><title>Example Domain</title></head><body><h1>Example Domain</h1>' +
          '<p>This domain is for use in illustrative examples in documents.</p>' +
          '<a href="https://www.iana.org/domains/example">More information...</a></body></html>',
      ),
  );
  t = await createTestApp({ UNFURL_ALLOW_PRIVATE_NETWORK: 'true', UNFURL_UPSTREAM_WEB: site.url });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeTestApp(t);
  await site?.close();
});

it("README's Firecrawl example runs as written and prints the page's Markdown", async () => {
  expect(script).toContain("apiUrl: 'http://127.0.0.1:8080'");
  const { apiKey } = await t.register();
  // Beside node_modules, so that the SDK resolves as it would in the reader's project.
  const file = path.join(root, 'node_modules', '.cache', `readme-firecrawl-${process.pid}.mjs`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, script!.replaceAll('http://127.0.0.1:8080', base));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      env: { ...process.env, UNFURL_API_KEY: apiKey },
      timeout: 30_000,
    });
    expect(stdout).toContain('# Example Domain');
    expect(stdout).toContain('This domain is for use in illustrative examples in documents.');
  } finally {
    fs.rmSync(file, { force: true });
  }
});
