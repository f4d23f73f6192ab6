// `unfurl mcp` as the rest of the CLI: the built binary finds the key (and server) `unfurl register`
// or `unfurl login` saved, with no UNFURL_API_KEY. And what every tool answers, over stdio and over
// /mcp, through the official MCP SDK client: never a secret (the account's webhook secret, a key),
// and a scraped page's Markdown as text, its other fields beside it.
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/mcp/server.js';
import { CLI, ROOT, runCli } from '../support/cli.js';
import { useCliServer } from '../support/cli-server.js';
import { CONSTRUCTED_CHANNEL } from '../support/youtube-replay.js';

const s = useCliServer('mcp');

/** `unfurl mcp` (the built binary) with exactly `env`: no key or URL unless given. */
async function stdio(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    }),
  );
  return client;
}

async function http(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      requestInit: { headers: { 'x-api-key': apiKey } },
    }),
  );
  return client;
}

type Content = Array<{ type: string; text: string }>;

async function answer(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError === true, content: result.content as Content };
}

describe('unfurl mcp with the saved login', () => {
  it('uses the key and server `unfurl register` saved when UNFURL_API_KEY is unset', async () => {
    const u = await s.registered();
    const client = await stdio({ XDG_CONFIG_HOME: u.dir });
    try {
      const balance = await answer(client, 'balance');
      expect(balance.isError, balance.content[0]?.text).toBe(false);
      expect(JSON.parse(balance.content[0]!.text)).toMatchObject({ credits: 100 });
    } finally {
      await client.close();
    }
  });

  it('without a key anywhere, says how to log in', async () => {
    const dir = fs.mkdtempSync(path.join(s.home, 'none-'));
    const r = await runCli(['mcp'], { XDG_CONFIG_HOME: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unfurl login/);
    expect(r.stderr).toMatch(/UNFURL_API_KEY/);
  });
});

describe.each(['stdio', 'http'] as const)('every MCP tool over %s', (transport) => {
  let client: Client;
  let apiKey: string;
  let webhookSecret: string;

  beforeAll(async () => {
    ({ apiKey } = await s.t.register());
    const account = await fetch(`${s.url}/v1/account`, { headers: { authorization: `Bearer ${apiKey}` } });
    webhookSecret = ((await account.json()) as { webhookSecret: string }).webhookSecret;
    expect(webhookSecret).toMatch(/^whsec_/);
    client =
      transport === 'stdio'
        ? await stdio({ UNFURL_API_KEY: apiKey, UNFURL_API_URL: s.url, XDG_CONFIG_HOME: s.home })
        : await http(apiKey);
  }, 60_000);
  afterAll(async () => client?.close());

  it('hands no secret to the model, whatever the tool', async () => {
    const video = 'https://www.youtube.com/watch?v=GJLlxj_dtq8';
    const clip = `${s.site.url}/clip.mp4`;
    const crawl = await answer(client, 'crawl_start', { url: `${s.site.url}/docs/p/1`, limit: 1 });
    const jobId = (JSON.parse(crawl.content[0]!.text) as { jobId: string }).jobId;
    const args: Record<string, Record<string, unknown>> = {
      balance: {},
      transcript: { url: video, mode: 'native', text: true },
      metadata: { url: video },
      video: { id: 'GJLlxj_dtq8' },
      channel: { id: CONSTRUCTED_CHANNEL },
      playlist: { id: 'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr' },
      search: { query: 'test' },
      comments: { id: 'constructed' },
      microblog_post: { url: 'https://twitter.com/SpaceX/status/1848831595014459513' },
      scrape: { url: `${s.site.url}/docs/p/2` },
      map: { url: `${s.site.url}/docs`, limit: 3 },
      crawl_status: { jobId },
      ocr: { url: clip, waitSeconds: 0 },
      describe: { url: clip, waitSeconds: 0 },
      extract: { url: clip, prompt: 'the words', waitSeconds: 0 },
      job_status: { jobId },
    };
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    const texts = [crawl.content.map((c) => c.text).join('\n')];
    for (const tool of tools) {
      const got = await answer(client, tool.name, args[tool.name] ?? {});
      for (const c of got.content) expect(c.type).toBe('text');
      texts.push(`${tool.name}: ${got.content.map((c) => c.text).join('\n')}`);
    }
    const balance = texts.find((t) => t.startsWith('balance: '))!;
    expect(balance).toMatch(/"credits":\d+/);
    for (const text of texts) {
      expect(text).not.toContain(webhookSecret);
      expect(text).not.toContain(apiKey);
      expect(text).not.toMatch(/webhookSecret|whsec_|uf_[A-Za-z0-9]{20}/);
    }
  });

  it('scrape answers the Markdown itself as text, and the page fields as JSON beside it', async () => {
    const got = await answer(client, 'scrape', { url: `${s.site.url}/docs/p/3` });
    expect(got.isError).toBe(false);
    expect(got.content).toHaveLength(2);
    expect(got.content[0]).toEqual({
      type: 'text',
      text: expect.stringContaining('Text of page number 3, with some words to keep.'),
    });
    const meta = JSON.parse(got.content[1]!.text);
    expect(meta).toMatchObject({ name: 'Page 3', url: `${s.site.url}/docs/p/3` });
    expect(meta.content).toBeUndefined();
    // An error is still one JSON text item.
    const bad = await answer(client, 'scrape', { url: 'ftp://example.com/' });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(bad.content[0]!.text)).toMatchObject({ error: 'invalid_request' });
  });
});

describe('redactSecrets', () => {
  it('drops credential fields and credential-shaped values at any depth, and keeps the rest', () => {
    const key = `uf_${'a'.repeat(43)}`;
    expect(
      redactSecrets({
        id: 'acc_1',
        credits: 5,
        webhookSecret: 'whsec_abcdefghijklmnopqrstuvwx',
        nested: [{ apiKey: key, password: 'p', nextPageToken: 'CAoQAA', note: 'uf_ is a prefix' }, key],
        data: { token: `uf_sess_${'b'.repeat(43)}` },
      }),
    ).toEqual({
      id: 'acc_1',
      credits: 5,
      nested: [{ nextPageToken: 'CAoQAA', note: 'uf_ is a prefix' }, '[redacted]'],
      data: {},
    });
  });
});
