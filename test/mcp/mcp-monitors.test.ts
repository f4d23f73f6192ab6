// The monitor tools through the official MCP client over streamable HTTP (/mcp on a listening server
// with its jobs and monitor clock running): they are listed with inputs read from the monitor routes,
// and create a page monitor on a loopback page, list it, check it now (waiting for the check job)
// after the page changed, and read the change as an event. Bad input is a tool error naming it.
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { quietLogger } from '../support/quiet-logger.js';

let t: TestApp;
let processing: JobProcessing | undefined;
let page: Loopback;
let client: Client;
/** The one paragraph of the page that changes. */
let pricing = 'The Pro plan costs 20 dollars a month and includes five seats.';

beforeAll(async () => {
  page = await startServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Acme pricing</title></head><body><main><article>
<h1>Acme pricing</h1>
<p>Acme makes tools for teams who ship every day. Our plans are simple and billed monthly with no setup fees at all.</p>
<h2>Plans</h2>
<p>${pricing}</p>
<p>The Team plan adds single sign-on, audit logs and priority support for larger organisations.</p>
</article></main></body></html>`);
  });
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
  });
  processing = await startJobProcessing(t.services, quietLogger);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const { apiKey } = await t.register();
  client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { 'x-api-key': apiKey } },
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await processing?.stop();
  await t?.close();
  await page?.close();
});

async function callTool(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text: string }>;
  expect(content[0]?.type).toBe('text');
  return { isError: result.isError === true, json: JSON.parse(content[0]!.text) as Record<string, unknown> };
}

describe('MCP monitor tools', () => {
  it('are listed with the inputs of their routes', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));

    const create = byName.get('monitor_create')!;
    expect(create.description).toMatch(/baseline/);
    expect([...(create.inputSchema.required ?? [])].sort()).toEqual(['every', 'kind', 'target']);
    expect(Object.keys(create.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'kind',
        'target',
        'every',
        'timezone',
        'name',
        'webhookUrl',
        'render',
        'maxVideos',
      ]),
    );
    expect(create.inputSchema.properties?.kind).toMatchObject({
      enum: ['channel', 'playlist', 'page', 'site'],
    });

    const list = byName.get('monitor_list')!;
    expect(list.inputSchema.required).toEqual([]);
    expect(Object.keys(list.inputSchema.properties ?? {}).sort()).toEqual(['cursor', 'limit']);

    const events = byName.get('monitor_events')!;
    expect(events.inputSchema.required).toEqual(['id']);
    expect(Object.keys(events.inputSchema.properties ?? {}).sort()).toEqual(['cursor', 'id', 'limit']);

    const check = byName.get('monitor_check')!;
    expect(check.inputSchema.required).toEqual(['id']);
    expect(Object.keys(check.inputSchema.properties ?? {}).sort()).toEqual(['id', 'waitSeconds']);
  });

  it('create, list, check now and read the events of a page monitor', async () => {
    const target = `${page.url}/pricing`;
    // An hour apart: only the first check (the baseline) and the ones asked for run in this test.
    const created = await callTool('monitor_create', { kind: 'page', target, every: '1h', name: 'Pricing' });
    expect(created.isError, JSON.stringify(created.json)).toBe(false);
    expect(created.json).toMatchObject({ kind: 'page', target, every: '1h', status: 'active' });
    const id = created.json.id as string;
    expect(id).toMatch(/^mon_/);

    const listed = await callTool('monitor_list', {});
    expect((listed.json.monitors as Array<{ id: string }>).map((m) => m.id)).toEqual([id]);
    expect(listed.json.next).toBeNull();

    // The baseline check may still be running: checking now joins it (or runs another), and waits.
    const baseline = await callTool('monitor_check', { id, waitSeconds: 30 });
    expect(baseline.isError, JSON.stringify(baseline.json)).toBe(false);
    expect(baseline.json).toMatchObject({ queue: 'monitor_check', status: 'completed' });
    expect((await callTool('monitor_events', { id })).json.events).toEqual([]);

    pricing = 'The Pro plan now costs 25 dollars a month and includes ten seats.';
    const checked = await callTool('monitor_check', { id, waitSeconds: 30 });
    expect(checked.isError, JSON.stringify(checked.json)).toBe(false);
    expect(checked.json).toMatchObject({ status: 'completed', result: { monitorId: id, events: 1 } });
    expect(checked.json.jobId).not.toBe(baseline.json.jobId);

    const events = await callTool('monitor_events', { id, limit: 10 });
    expect(events.isError, JSON.stringify(events.json)).toBe(false);
    const [change, ...rest] = events.json.events as Array<{ data: { diff: string } }>;
    expect(rest).toEqual([]);
    expect(change).toMatchObject({
      type: 'page.changed',
      jobId: checked.json.jobId,
      data: { url: target },
    });
    expect(change!.data.diff).toContain('+The Pro plan now costs 25 dollars a month and includes ten seats.');
  });

  it('bad input is a tool error naming the input', async () => {
    const bad = await callTool('monitor_create', { kind: 'page', target: `${page.url}/x`, every: 'often' });
    expect(bad.isError).toBe(true);
    expect(bad.json).toMatchObject({ error: 'invalid_request', details: 'every' });
    const traversal = await callTool('monitor_events', { id: '../account' });
    expect(traversal.json).toMatchObject({ error: 'invalid_request', details: 'id' });
    const unknown = await callTool('monitor_check', { id: 'mon_doesnotexist' });
    expect(unknown).toMatchObject({ isError: true, json: { error: 'not_found' } });
  });
});
