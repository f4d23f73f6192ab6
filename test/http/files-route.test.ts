// GET /v1/files/{fileId} through the real app: the exact bytes and the headers of a file to its owner
// (type, length, private caching until it expires, no sniffing, a sandboxing CSP, its name); a 404 of
// the same shape for another account's file, an unknown one and an expired one; a 401 without a key;
// free. Its OpenAPI operation documents a binary answer and is no MCP tool; the SDK's files.get reads it.

import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Unfurl, UnfurlError } from '../../packages/sdk/src/index.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { changeLastChar } from '../support/strings.js';
import { closeTestApp } from '../support/teardown.js';

let t: TestApp;
let a: { accountId: string; apiKey: string };
let b: { accountId: string; apiKey: string };

beforeAll(async () => {
  t = await createTestApp();
  a = await t.register();
  b = await t.register();
});
afterAll(async () => closeTestApp(t));

const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.alloc(64, 0),
  Buffer.alloc(64, 0xff),
]);

async function balance(key: string): Promise<number> {
  return (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;
}

describe('GET /v1/files/:fileId', () => {
  it('answers its owner the exact bytes with type, length, caching, nosniff and its name; free', async () => {
    const expiresAt = Date.now() + 3600_000;
    const file = await t.services.files.put({
      accountId: a.accountId,
      contentType: 'image/png',
      data: png,
      expiresAt,
    });
    const path = new URL(file.url).pathname;
    expect(path).toBe(`/v1/files/${file.id}`);
    const credits = await balance(a.apiKey);
    const res = await t.call(a.apiKey, { method: 'GET', url: path });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(png)).toBe(true);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(png.byteLength));
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(res.headers['cache-control']))?.[1]);
    expect(maxAge).toBeGreaterThan(3590);
    expect(maxAge).toBeLessThanOrEqual(3600);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(res.headers['content-disposition']).toBe(`inline; filename="${file.id}.png"`);
    expect(res.headers['x-credits-charged']).toBeUndefined();
    expect(await balance(a.apiKey)).toBe(credits);

    // x-api-key works as for every other route; a PDF is named .pdf.
    const pdf = await t.services.files.put({
      accountId: a.accountId,
      contentType: 'application/pdf',
      data: Buffer.from('%PDF-1.4\n\0\xff'),
    });
    const viaHeader = await t.app.inject({
      method: 'GET',
      url: `/v1/files/${pdf.id}`,
      headers: { 'x-api-key': a.apiKey },
    });
    expect(viaHeader.statusCode).toBe(200);
    expect(viaHeader.headers['content-type']).toBe('application/pdf');
    expect(viaHeader.headers['content-disposition']).toBe(`inline; filename="${pdf.id}.pdf"`);
    expect(viaHeader.rawPayload.equals(Buffer.from('%PDF-1.4\n\0\xff'))).toBe(true);
  });

  it("is the same 404 for another account's file, an unknown id and an expired file", async () => {
    const file = await t.services.files.put({ accountId: a.accountId, contentType: 'image/png', data: png });
    const expired = await t.services.files.put({
      accountId: a.accountId,
      contentType: 'image/png',
      data: png,
      expiresAt: Date.now() - 1,
    });
    const answers = [
      await t.call(b.apiKey, { method: 'GET', url: `/v1/files/${file.id}` }),
      await t.call(a.apiKey, { method: 'GET', url: `/v1/files/${changeLastChar(file.id)}` }),
      await t.call(a.apiKey, { method: 'GET', url: `/v1/files/${expired.id}` }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ error: 'not_found', message: 'file not found', details: null });
      expect(res.body).not.toContain(file.id);
    }
    // The owner still reads it.
    expect((await t.call(a.apiKey, { method: 'GET', url: `/v1/files/${file.id}` })).statusCode).toBe(200);
  });

  it('is a 401 without a key, or with a wrong one', async () => {
    const file = await t.services.files.put({ accountId: a.accountId, contentType: 'image/png', data: png });
    for (const key of [null, 'uf_notakey']) {
      const res = await t.call(key, { method: 'GET', url: `/v1/files/${file.id}` });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('unauthorized');
      expect(res.rawPayload.includes(png.subarray(0, 16))).toBe(false);
    }
  });

  it('is documented as a binary answer, operation `file`, and is no MCP tool', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/v1/files/{fileId}'].get;
    expect(op.operationId).toBe('file');
    expect(op.tags).toEqual(['Files']);
    expect(op['x-mcp-tool']).toBeUndefined();
    expect(op.responses['200'].content['image/png'].schema).toEqual({ type: 'string', format: 'binary' });
    expect(Object.keys(op.responses).sort()).toEqual(['200', '401', '404', '429']);
  });

  it("the SDK's files.get answers a Blob of the exact bytes and type; another account's is a not_found error", async () => {
    const file = await t.services.files.put({ accountId: a.accountId, contentType: 'image/png', data: png });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const blob = await new Unfurl({ baseUrl, apiKey: a.apiKey }).files.get(file.id);
    expect(blob.type).toBe('image/png');
    expect(Buffer.from(await blob.arrayBuffer()).equals(png)).toBe(true);
    const theirs = await new Unfurl({ baseUrl, apiKey: b.apiKey }).files
      .get(file.id)
      .catch((err: unknown) => err);
    expect(theirs).toBeInstanceOf(UnfurlError);
    expect(theirs).toMatchObject({ code: 'not_found', status: 404 });
  });
});
