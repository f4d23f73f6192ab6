// Readiness (GET /ready): the database answers a query, and so does Redis when one is configured.
import { sql } from 'kysely';
import { AppError } from '../errors.js';
import type { Store } from './db.js';

/** Anything with a round trip to test (the Redis client). */
export interface Pingable {
  ping(): Promise<unknown>;
}

export interface Readiness {
  /** The database dialect that answered. */
  database: Store['dialect'];
  redis: 'ok' | 'not configured';
}

/** Resolves when every backing service answers; a 503 naming the first one that does not. */
export async function checkReadiness(store: Store, redis: Pingable | null): Promise<Readiness> {
  try {
    await sql`select 1`.execute(store.db);
  } catch {
    throw new AppError('service_unavailable', 'The database is not reachable');
  }
  if (redis) {
    try {
      await redis.ping();
    } catch {
      throw new AppError('service_unavailable', 'Redis is not reachable');
    }
  }
  return { database: store.dialect, redis: redis ? 'ok' : 'not configured' };
}
