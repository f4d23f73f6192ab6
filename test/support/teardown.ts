// Closing a test app so that dropping its PostgreSQL database cannot kill a connection that is
// still closing. pg's Pool.end() resolves before its clients' sockets are closed; a
// `DROP DATABASE … WITH (FORCE)` in that window terminates them, the client reports the FATAL
// error to the pool, and a pool without an 'error' listener (src/store/db.ts) throws it as an
// uncaught exception. So: close, wait until the server sees no connection left, then dispose.
import pg from 'pg';
import type { TestApp } from './app.js';

/** Waits (up to `timeoutMs`) until PostgreSQL shows no connection to `databaseUrl`'s database. */
export async function waitForNoConnections(databaseUrl: string, timeoutMs = 15_000): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL ?? databaseUrl });
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await admin.query<{ n: string }>(
        'select count(*) as n from pg_stat_activity where datname = $1',
        [name],
      );
      if (Number(rows[0]?.n ?? 0) === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await admin.end();
  }
}

/** TestApp.close(), with the wait above between closing the services and dropping the database. */
export async function closeTestApp(t: TestApp | undefined, before: () => Promise<void> = async () => {}) {
  if (!t) return;
  await t.app.close();
  await before();
  await t.services.close();
  if (t.env.env.DATABASE_URL) await waitForNoConnections(t.env.env.DATABASE_URL, 10_000);
  await t.env.dispose();
}
