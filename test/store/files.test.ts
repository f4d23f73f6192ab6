// Stored files (screenshots): the bytes come back exactly as they were put (SQLite's BLOB and
// PostgreSQL's bytea alike; this file runs under whichever DATABASE_URL sets), to their owner only and
// until they expire; the sweeper deletes expired ones in bounded batches; a file past the cap is refused.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireFiles, type FileStore, MAX_FILE_BYTES } from '../../src/files/store.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { usingPostgres } from '../support/env.js';
import { handRunner } from '../support/hand-runner.js';
import { changeLastChar } from '../support/strings.js';
import { closeTestApp } from '../support/teardown.js';

let t: TestApp;
let files: FileStore;
let a: { accountId: string };
let b: { accountId: string };

beforeAll(async () => {
  t = await createTestApp();
  files = t.services.files;
  a = await t.register();
  b = await t.register();
});
afterAll(async () => closeTestApp(t));

/** Every byte value, zeros and 0xFF runs, a NUL-terminated-looking prefix and invalid UTF-8. */
function awkwardBytes(): Buffer {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  return Buffer.concat([
    Buffer.from([0x00, 0x00, 0xff, 0xff, 0x00]),
    all,
    Buffer.alloc(1000, 0x00),
    Buffer.alloc(1000, 0xff),
    Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc]),
    Buffer.from(all).reverse(),
    Buffer.from([0x00]),
  ]);
}

describe('FileStore', () => {
  it('keeps the bytes in a binary column (BLOB on SQLite, bytea on PostgreSQL)', async () => {
    const tables = await t.services.store.db.introspection.getTables();
    const data = tables.find((x) => x.name === 'files')!.columns.find((c) => c.name === 'data')!;
    expect(data.dataType.toLowerCase()).toBe(usingPostgres ? 'bytea' : 'blob');
    expect(data.isNullable).toBe(false);
  });

  it('gives the exact bytes back to their owner, with the type and expiry it was put with', async () => {
    const data = awkwardBytes();
    const expiresAt = Date.now() + 60_000;
    const stored = await files.put({ accountId: a.accountId, contentType: 'image/png', data, expiresAt });
    expect(stored).toEqual({
      id: expect.stringMatching(/^file_[0-9a-z]{9}[0-9A-Za-z]{24}$/),
      url: `http://127.0.0.1:8080/v1/files/${stored.id}`,
      contentType: 'image/png',
      bytes: data.byteLength,
      expiresAt,
    });
    const got = await files.get(stored.id, a.accountId);
    expect(got).not.toBeNull();
    expect(Buffer.isBuffer(got!.data)).toBe(true);
    expect(got!.data.byteLength).toBe(data.byteLength);
    expect(got!.data.equals(data)).toBe(true);
    expect(got!.contentType).toBe('image/png');
    expect(got!.expiresAt).toBe(expiresAt);
  });

  it('round-trips an empty file, a single zero byte, a Uint8Array view and a large random file', async () => {
    const backing = new Uint8Array([9, 9, 0, 255, 0, 9, 9]);
    const large = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < large.length; i++) large[i] = (i * 2654435761) >>> 24;
    const cases: Array<[Uint8Array, Buffer]> = [
      [Buffer.alloc(0), Buffer.alloc(0)],
      [Buffer.from([0]), Buffer.from([0])],
      [Buffer.from([0xff]), Buffer.from([0xff])],
      // A view into a larger buffer: only its own bytes are stored.
      [backing.subarray(2, 5), Buffer.from([0, 255, 0])],
      [large, large],
    ];
    for (const [data, expected] of cases) {
      const stored = await files.put({ accountId: a.accountId, contentType: 'image/jpeg', data });
      expect(stored.bytes).toBe(expected.byteLength);
      const got = await files.get(stored.id, a.accountId);
      expect(got!.data.equals(expected), `${expected.byteLength} bytes`).toBe(true);
    }
  });

  it('is null for another account, an unknown id and an expired file; ids are not guessable from each other', async () => {
    const now = Date.now();
    const mine = await files.put({
      accountId: a.accountId,
      contentType: 'image/png',
      data: Buffer.from('a'),
      expiresAt: now + 60_000,
    });
    const next = await files.put({
      accountId: a.accountId,
      contentType: 'image/png',
      data: Buffer.from('b'),
    });
    expect(next.id).not.toBe(mine.id);
    expect(next.id.slice(14)).not.toBe(mine.id.slice(14));
    expect(await files.get(mine.id, b.accountId)).toBeNull();
    expect(await files.get(changeLastChar(mine.id), a.accountId)).toBeNull();
    expect(await files.get('file_unknown', a.accountId)).toBeNull();
    // Past its expiry it is gone, even before the sweeper deletes it.
    expect(await files.get(mine.id, a.accountId, now + 60_000)).toBeNull();
    expect(await files.get(mine.id, a.accountId, now + 59_999)).not.toBeNull();
  });

  it('by default lives as long as job results do', async () => {
    const before = Date.now();
    const stored = await files.put({
      accountId: a.accountId,
      contentType: 'image/webp',
      data: Buffer.from('w'),
    });
    const ttl = t.services.config.jobResultTtlMs;
    expect(stored.expiresAt).toBeGreaterThanOrEqual(before + ttl);
    expect(stored.expiresAt).toBeLessThanOrEqual(Date.now() + ttl);
  });

  it('refuses a file over the cap and stores one at it', async () => {
    const over = Buffer.alloc(MAX_FILE_BYTES + 1, 1);
    await expect(
      files.put({ accountId: a.accountId, contentType: 'image/png', data: over }),
    ).rejects.toMatchObject({ code: 'payload_too_large', retryable: false });
    const at = await files.put({
      accountId: a.accountId,
      contentType: 'image/png',
      data: over.subarray(0, MAX_FILE_BYTES),
    });
    expect(at.bytes).toBe(MAX_FILE_BYTES);
    // Not kept longer than this test needs it.
    await t.services.store.db.deleteFrom('files').where('id', '=', at.id).execute();
  });

  it("lists a job's unexpired files without their bytes", async () => {
    const jobId = 'job_files_test_1';
    const now = Date.now();
    const first = await files.put({
      accountId: a.accountId,
      contentType: 'image/png',
      data: Buffer.from('1'),
      jobId,
    });
    const second = await files.put({
      accountId: a.accountId,
      contentType: 'application/pdf',
      data: Buffer.from('2'),
      jobId,
    });
    await files.put({
      accountId: a.accountId,
      contentType: 'image/png',
      data: Buffer.from('3'),
      jobId,
      expiresAt: now - 1,
    });
    expect(await files.forJob(jobId)).toEqual([first, second]);
    expect(await files.forJob('job_none')).toEqual([]);
  });

  it('expire deletes expired files only, in bounded batches; the sweeper runs it', async () => {
    const db = t.services.store.db;
    await db.deleteFrom('files').execute();
    const now = Date.now();
    const expired = [];
    for (let i = 0; i < 7; i++) {
      expired.push(
        await files.put({
          accountId: b.accountId,
          contentType: 'image/png',
          data: Buffer.from([i]),
          expiresAt: now - 1000 + i,
        }),
      );
    }
    const live = await files.put({
      accountId: b.accountId,
      contentType: 'image/png',
      data: Buffer.from('live'),
      expiresAt: now + 60_000,
    });
    // Two batches of 3 at most: the oldest 6 go, the 7th waits for the next run.
    expect(await expireFiles(db, now, 3, 2)).toBe(6);
    const left = await db.selectFrom('files').select('id').orderBy('expires_at').execute();
    expect(left.map((r) => r.id)).toEqual([expired[6]!.id, live.id]);
    expect(await files.expire(now)).toBe(1);
    expect(await files.expire(now)).toBe(0);
    expect(await files.get(live.id, b.accountId)).not.toBeNull();

    // The job sweeper (every process that runs jobs, both deployments) deletes them too.
    const gone = await files.put({
      accountId: b.accountId,
      contentType: 'image/png',
      data: Buffer.from('gone'),
      expiresAt: Date.now() - 1,
    });
    const runner = handRunner(t);
    try {
      await runner.sweep();
    } finally {
      runner.close();
    }
    const ids = (await db.selectFrom('files').select('id').execute()).map((r) => r.id);
    expect(ids).toContain(live.id);
    expect(ids).not.toContain(gone.id);
  });
});
