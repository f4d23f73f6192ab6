// The embedded database's WAL checkpoints run on a worker thread: what is committed reaches the
// database file without the committing connection checkpointing (its own threshold is only a
// backstop), and when the worker stops, SQLite's own threshold is back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKSTOP_AUTOCHECKPOINT, BackgroundCheckpoints } from '../../src/store/sqlite-checkpoints.js';

let dir: string;
let file: string;
let main: SQLite.Database;
let checkpoints: BackgroundCheckpoints | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-checkpoints-'));
  file = path.join(dir, 'db.sqlite');
  main = new SQLite(file);
  main.pragma('journal_mode = WAL');
  main.pragma('synchronous = NORMAL');
  main.exec('create table pages (id integer primary key, body text not null)');
});

afterEach(async () => {
  await checkpoints?.stop();
  checkpoints = undefined;
  main.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const autocheckpoint = () => main.pragma('wal_autocheckpoint', { simple: true });

/** Commits `n` rows of about 1 KB each, one transaction per 50 rows. */
function write(n: number): void {
  const insert = main.prepare('insert into pages (body) values (?)');
  const batch = main.transaction((count: number) => {
    for (let i = 0; i < count; i++) insert.run('x'.repeat(1000));
  });
  for (let done = 0; done < n; done += 50) batch(Math.min(50, n - done));
}

async function until(check: () => boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('background WAL checkpoints', () => {
  it('copy committed pages into the database file while the writer never checkpoints', async () => {
    checkpoints = new BackgroundCheckpoints(file, main, 20);
    expect(autocheckpoint()).toBe(BACKSTOP_AUTOCHECKPOINT);
    // About 600 pages: under the writer's backstop, so only the worker can have copied them.
    write(2000);
    await until(() => fs.statSync(file).size > 2_000_000, 5000);
    // A fresh connection reads every row from the file and the WAL alike.
    const reader = new SQLite(file, { readonly: true });
    try {
      expect(reader.prepare('select count(*) as n from pages').get()).toEqual({ n: 2000 });
    } finally {
      reader.close();
    }
  });

  it('gives checkpoints back to the writer when the worker stops or dies', async () => {
    checkpoints = new BackgroundCheckpoints(file, main, 20);
    await checkpoints.stop();
    expect(autocheckpoint()).toBe(1000);

    checkpoints = new BackgroundCheckpoints(file, main, 20);
    expect(autocheckpoint()).toBe(BACKSTOP_AUTOCHECKPOINT);
    const exited = new Promise((resolve) => checkpoints!.worker.once('exit', resolve));
    await checkpoints.worker.terminate();
    await exited;
    expect(autocheckpoint()).toBe(1000);
    // With the writer's threshold back, a large write is checkpointed inline again.
    const before = fs.statSync(file).size;
    write(5000);
    expect(fs.statSync(file).size).toBeGreaterThan(before);
  });

  it('keeps the WAL bounded under writes that never pause', () => {
    // Rounds far more often than the server's, so that the worker holds the checkpoint lock often.
    checkpoints = new BackgroundCheckpoints(file, main, 20);
    // About 10,000 pages, several times the backstop, in transactions back to back.
    for (let written = 0; written < 30_000; written += 500) write(500);
    const walPages = fs.statSync(`${file}-wal`).size / 4096;
    expect(walPages).toBeLessThan(BACKSTOP_AUTOCHECKPOINT * 2);
  });
});
