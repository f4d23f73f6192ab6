// The MCP server through the official SDK's client, unchanged: over stdio (`unfurl mcp`, a real child
// process calling the API over the network) and over streamable HTTP (`/mcp` on the server). Tools
// are listed from the server's own OpenAPI document and called against the video-platform replay, a
// loopback website and a generated video; credits move exactly as through the HTTP API; auth failures,
// 402 and a job that outlives the wait are answered as tool errors or a job id.

import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AiApp, balance, startAiApp } from '../media/ai/harness.js';
import {
  captionVideo,
  haveFfmpeg,
  haveTesseract,
  type MediaServer,
  startMediaServer,
} from '../media/ai/media.js';
import { BEARER, startXReplay } from '../sources/x/replay.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { repoRoot } from '../support/processes.js';
import { CONSTRUCTED_CHANNEL, startYouTubeReplay, type YouTubeReplay } from '../support/youtube-replay.js';

const tools = haveFfmpeg() && haveTesseract();
if (process.env.CI === 'true' && !tools) throw new Error('ffmpeg and tesseract are needed (CI)');
vi.setConfig({ testTimeout: 120_000 });

let ai: OpenAiServer;
let media: MediaServer;
let site: Loopback;
let replay: YouTubeReplay;
let xReplay: Loopback;
let main: AiApp;
let url: string;

const page = (title: string, body: string, links: string[] = []) =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>` +
  `${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;

beforeAll(async () => {
  ai = await startOpenAiServer();
  media = await startMediaServer();
  if (tools) {
    await captionVideo(
      path.join(media.dir, 'caption.mp4'),
      [{ text: 'HELLO AGENT', startSec: 0, endSec: 2 }],
      2,
    );
  }
  site = await startServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    const send = (status: number, body: string) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (p === '/robots.txt') return res.writeHead(404).end();
    if (p === '/') return send(200, page('Agent home', 'Words for the agent to read.', ['/a', '/b']));
    if (p === '/a' || p === '/b') return send(200, page(`Page ${p}`, `The text of ${p}.`));
    return send(404, page('Not found', 'Nothing here.'));
  });
  replay = await startYouTubeReplay();
  xReplay = await startXReplay();
  main = await startAiApp(ai, {
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_UPSTREAM_X: xReplay.url,
    UNFURL_X_BEARER_TOKEN: BEARER,
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
  });
  await main.t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(main.t.app.server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await main?.close();
  await replay?.close();
  await xReplay?.close();
  await site?.close();
  await media?.close();
  await ai?.close();
});

/** A client over stdio: `unfurl mcp` as an agent would start it, with the key and URL in its environment. */
async function stdioClient(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(repoRoot, 'src/main/cli.ts'), 'mcp'],
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', UNFURL_API_KEY: apiKey, UNFURL_API_URL: `${url}/v1` },
      stderr: 'pipe',
    }),
  );
  return client;
}

/** A client over streamable HTTP to /mcp, the key in x-api-key (or as a bearer). */
async function httpClient(apiKey: string, as: 'x-api-key' | 'bearer' = 'x-api-key'): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const headers: Record<string, string> =
    as === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

interface ToolAnswer {
  isError: boolean;
  json: Record<string, unknown>;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text: string }>;
  expect(content[0]?.type).toBe('text');
  return { isError: result.isError === true, json: JSON.parse(content[0]!.text) };
}

/** Every tool: each one's route exists on this server (a tool is offered only when its operation is). */
const EXPECTED_TOOLS = [
  'metadata',
  'playlist',
  'search',
  'balance',
  'channel',
  'comments',
  'crawl_start',
  'crawl_status',
  'describe',
  'extract',
  'job_status',
  'map',
  'microblog_post',
  'monitor_check',
  'monitor_create',
  'monitor_events',
  'monitor_list',
  'ocr',
  'scrape',
  'transcript',
  'video',
  'web_search',
];

describe.each(['stdio', 'http'] as const)('MCP over %s', (transport) => {
  let client: Client;
  let apiKey: string;

  beforeAll(async () => {
    apiKey = (await main.t.register()).apiKey;
    client = transport === 'stdio' ? await stdioClient(apiKey) : await httpClient(apiKey);
  }, 60_000);
  afterAll(async () => client?.close());

  it('lists the tools with JSON-schema inputs read from the routes, and a description each', async () => {
    const { tools: listed } = await client.listTools();
    const names = listed.map((t) => t.name);
    expect([...names].sort()).toEqual([...EXPECTED_TOOLS].sort());
    const scrape = listed.find((t) => t.name === 'scrape')!;
    expect(scrape.description).toMatch(/Markdown/);
    expect(scrape.inputSchema).toMatchObject({ type: 'object', required: ['url'] });
    expect(Object.keys(scrape.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['url', 'noLinks', 'render']),
    );
    const ocr = listed.find((t) => t.name === 'ocr')!;
    expect(Object.keys(ocr.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['url', 'waitSeconds']),
    );
    const status = listed.find((t) => t.name === 'crawl_status')!;
    expect(status.inputSchema.required).toContain('jobId');
  });

  it('balance, scrape and map: the answers of the API, charged as the API charges them', async () => {
    const account = await callTool(client, 'balance', {});
    expect(account.json.credits).toBe(100);
    // Never a secret to the model: the account's webhook secret stays out of the answer.
    expect(account.json.webhookSecret).toBeUndefined();
    // A page answers its Markdown as the first text item, its other fields as JSON beside it.
    const page = await client.callTool({ name: 'scrape', arguments: { url: `${site.url}/` } });
    expect(page.isError).not.toBe(true);
    const [markdown, fields] = page.content as Array<{ type: string; text: string }>;
    expect(markdown).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Words for the agent to read.'),
    });
    expect(JSON.parse(fields!.text).name).toBe('Agent home');
    expect(await balance(main.t, apiKey)).toBe(99);
    const mapped = await callTool(client, 'map', { url: `${site.url}/` });
    expect(mapped.json.urls).toEqual(expect.arrayContaining([`${site.url}/a`, `${site.url}/b`]));
    expect(await balance(main.t, apiKey)).toBe(98);
    // The same request through the HTTP API answers the same page.
    const direct = await main.t.call(apiKey, { method: 'GET', url: `/v1/web/scrape?url=${site.url}/` });
    expect(direct.json().content).toBe(markdown!.text);
  });

  it('crawl_start answers a job id; crawl_status pages through what it found', async () => {
    const started = await callTool(client, 'crawl_start', { url: `${site.url}/`, limit: 3 });
    expect(started.json.jobId).toMatch(/^job_/);
    const jobId = started.json.jobId as string;
    let status: ToolAnswer;
    const deadline = Date.now() + 60_000;
    do {
      await new Promise((r) => setTimeout(r, 200));
      status = await callTool(client, 'crawl_status', { jobId });
    } while (status.json.status !== 'completed' && Date.now() < deadline);
    expect(status.json.status).toBe('completed');
    expect(status.json.total).toBe(3);
    const urls = (status.json.pages as Array<{ url: string }>).map((p) => p.url).sort();
    expect(urls).toEqual([`${site.url}/`, `${site.url}/a`, `${site.url}/b`]);
    const skipped = await callTool(client, 'crawl_status', { jobId, skip: 2 });
    expect(skipped.json.pages).toHaveLength(1);
  });

  it('video-platform tools on the replay: transcript, video, channel, comments, playlist, search, metadata', async () => {
    const transcript = await callTool(client, 'transcript', {
      url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8',
      mode: 'native',
      text: true,
    });
    expect(transcript.isError).toBe(false);
    expect(typeof transcript.json.content).toBe('string');
    expect((transcript.json.content as string).length).toBeGreaterThan(100);
    expect((await callTool(client, 'video', { id: 'GJLlxj_dtq8' })).json.id).toBe('GJLlxj_dtq8');
    expect((await callTool(client, 'channel', { id: CONSTRUCTED_CHANNEL })).json.id).toBe(
      CONSTRUCTED_CHANNEL,
    );
    const comments = await callTool(client, 'comments', { id: 'constructed' });
    expect(comments.isError, JSON.stringify(comments.json)).toBe(false);
    const playlist = await callTool(client, 'playlist', { id: 'PLzMcBGfZo4-mP7qA9cagf68V06sko5otr' });
    expect(playlist.json.id).toBe('PLzMcBGfZo4-mP7qA9cagf68V06sko5otr');
    const found = await callTool(client, 'search', { query: 'test' });
    expect((found.json.results as unknown[]).length).toBeGreaterThan(0);
    const meta = await callTool(client, 'metadata', { url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8' });
    expect(meta.json).toMatchObject({ platform: 'youtube', id: 'GJLlxj_dtq8' });
    const post = await callTool(client, 'microblog_post', {
      url: 'https://twitter.com/SpaceX/status/1848831595014459513',
    });
    expect(post.isError, JSON.stringify(post.json)).toBe(false);
    expect(post.json.id).toBe('1848831595014459513');
  });

  it.skipIf(!tools)(
    'ocr waits for its job and answers the text; one that outlives the wait answers its id',
    async () => {
      const done = await callTool(client, 'ocr', {
        url: media.urlOf('caption.mp4'),
        format: 'text',
        waitSeconds: 90,
      });
      expect(done.isError, JSON.stringify(done.json)).toBe(false);
      expect(done.json).toMatchObject({ status: 'completed', content: 'HELLO AGENT' });
      expect(done.json.jobId).toMatch(/^job_/);

      const pending = await callTool(client, 'describe', {
        url: media.urlOf('caption.mp4'),
        mode: 'ocr',
        waitSeconds: 0,
      });
      expect(pending.isError).toBe(false);
      expect(pending.json.jobId).toMatch(/^job_/);
      expect(pending.json.message).toMatch(/job_status/);
      const jobId = pending.json.jobId as string;
      let job: ToolAnswer;
      const deadline = Date.now() + 90_000;
      do {
        await new Promise((r) => setTimeout(r, 250));
        job = await callTool(client, 'job_status', { jobId });
      } while (job.json.status !== 'completed' && job.json.status !== 'failed' && Date.now() < deadline);
      expect(job.json).toMatchObject({ id: jobId, status: 'completed' });
    },
  );

  it.skipIf(!tools)('extract waits for its job and answers the data in the schema given', async () => {
    ai.chat = () => JSON.stringify({ words: 'HELLO AGENT' });
    const schema = {
      type: 'object',
      properties: { words: { type: 'string' } },
      required: ['words'],
      additionalProperties: false,
    };
    const done = await callTool(client, 'extract', {
      url: media.urlOf('caption.mp4'),
      schema,
      waitSeconds: 90,
    });
    expect(done.isError, JSON.stringify(done.json)).toBe(false);
    expect(done.json).toMatchObject({ status: 'completed', data: { words: 'HELLO AGENT' }, schema });
  });

  it('an API error is a tool error with our code and message, and costs nothing', async () => {
    const before = await balance(main.t, apiKey);
    const bad = await callTool(client, 'scrape', { url: 'ftp://example.com/' });
    expect(bad.isError).toBe(true);
    expect(bad.json).toMatchObject({ error: 'invalid_request', details: 'url' });
    const unknownJob = await callTool(client, 'job_status', { jobId: 'job_doesnotexist000000' });
    expect(unknownJob.json.error).toBe('not_found');
    const traversal = await callTool(client, 'job_status', { jobId: '../account' });
    expect(traversal.json).toMatchObject({ error: 'invalid_request', details: 'jobId' });
    expect(await balance(main.t, apiKey)).toBe(before);
  });

  it('402: an empty account gets insufficient_credits as a tool error', async () => {
    const { apiKey: poorKey, accountId } = await main.t.register();
    await main.t.services.ledger.clawback(accountId, 100, 'test: empty the account');
    const poor = transport === 'stdio' ? await stdioClient(poorKey) : await httpClient(poorKey, 'bearer');
    try {
      const refused = await callTool(poor, 'scrape', { url: `${site.url}/` });
      expect(refused.isError).toBe(true);
      expect(refused.json.error).toBe('insufficient_credits');
      expect(await balance(main.t, poorKey)).toBe(0);
    } finally {
      await poor.close();
    }
  });
});

describe('MCP auth failures', () => {
  it('stdio: a wrong key answers every tool call with unauthorized', async () => {
    const client = await stdioClient('uf_not_a_real_key');
    try {
      const answer = await callTool(client, 'balance', {});
      expect(answer.isError).toBe(true);
      expect(answer.json.error).toBe('unauthorized');
    } finally {
      await client.close();
    }
  });

  it('HTTP: /mcp without a valid key is a 401 before any MCP message is handled', async () => {
    await expect(httpClient('uf_not_a_real_key')).rejects.toThrow(/401|unauthorized/i);
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('unauthorized');
  });

  it('HTTP: GET /mcp is a 405 naming POST (the endpoint is stateless)', async () => {
    const { apiKey } = await main.t.register();
    const res = await fetch(`${url}/mcp`, { headers: { 'x-api-key': apiKey } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(((await res.json()) as { error: string }).error).toBe('method_not_allowed');
  });
});
