// A fresh PostgreSQL database for one benchmark run, dropped afterwards.
import pg from 'pg';
import { randomBase62 } from '../../src/ids.js';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function run(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Creates `unfurl_bench_…` on the server of `adminUrl` and answers its URL. */
export async function scratchDatabase(adminUrl: string): Promise<ScratchDatabase> {
  const name = `unfurl_bench_${randomBase62(10).toLowerCase()}`;
  await run(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
