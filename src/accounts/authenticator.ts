// Turns a bearer token into a principal. Lookups are cached for at most `cacheMs` (≤ 1 s), so a key
// revoked on another process stops working within that time; this process forgets it at once.
import type { Db } from '../store/db.js';
import type { Principal } from './accounts.js';
import { API_KEY_PREFIX, hashToken } from './secrets.js';

interface CacheEntry {
  principal: Principal | null;
  expiresAt: number | null;
  cachedAt: number;
}

const TOUCH_EVERY_MS = 60_000;
const MAX_CACHE_ENTRIES = 50_000;

export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly cacheMs: number,
  ) {}

  /**
   * The key's principal, or null for an unknown, revoked or expired key: at once when this process
   * looked the key up lately (no promise on the hot path), else once the database answers.
   */
  authenticate(token: string): Principal | null | Promise<Principal | null> {
    if (!token.startsWith(API_KEY_PREFIX) || token.length > 200) return null;
    const hash = hashToken(token);
    const now = Date.now();
    const entry = this.cache.get(hash);
    if (entry && now - entry.cachedAt < this.cacheMs) return this.admit(entry, now);
    return this.lookup(hash, now).then((found) => {
      if (this.cacheMs > 0) {
        if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
        this.cache.set(hash, found);
      }
      return this.admit(found, now);
    });
  }

  /** Drops a revoked key from this process's cache so it fails on the very next request. */
  forget(keyHash: string): void {
    this.cache.set(keyHash, { principal: null, expiresAt: null, cachedAt: Date.now() });
  }

  /** The principal of a known key still valid at `now` (its use recorded), else null. */
  private admit(entry: CacheEntry, now: number): Principal | null {
    if (!entry.principal) return null;
    if (entry.expiresAt !== null && entry.expiresAt <= now) return null;
    this.touch(entry.principal.keyId, now);
    return entry.principal;
  }

  private async lookup(hash: string, now: number): Promise<CacheEntry> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'account_id', 'kind', 'revoked_at', 'expires_at'])
      .where('key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) return { principal: null, expiresAt: null, cachedAt: now };
    return {
      principal: { accountId: row.account_id, keyId: row.id, kind: row.kind },
      expiresAt: row.expires_at,
      cachedAt: now,
    };
  }

  /** Records last use at most once a minute per key, off the request's path. */
  private touch(keyId: string, now: number): void {
    const last = this.touched.get(keyId) ?? 0;
    if (now - last < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    if (this.touched.size > MAX_CACHE_ENTRIES) this.touched.clear();
    this.db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', keyId)
      .execute()
      .catch(() => this.touched.delete(keyId));
  }
}
