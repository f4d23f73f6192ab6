// Accounts, API keys and login sessions. Secrets are returned once and stored only as hashes; keys
// and sessions are rows of one table, told apart by `kind`, revoked the same way.
import { randomBytes } from 'node:crypto';
import type { Ledger } from '../billing/ledger.js';
import { FREE_CREDITS_AT_REGISTRATION } from '../billing/prices.js';
import { AppError, invalid } from '../errors.js';
import { newId } from '../ids.js';
import { lockAccountRow } from '../store/account-lock.js';
import { type Db, isUniqueViolation, type Tx } from '../store/db.js';
import { PreparedQuery } from '../store/prepared.js';
import { COMMON_PASSWORDS } from './common-passwords.js';
import {
  API_KEY_PREFIX,
  DUMMY_PASSWORD_HASH,
  displayPrefix,
  hashPassword,
  hashToken,
  newSecret,
  SESSION_PREFIX,
  verifyPassword,
} from './secrets.js';

export const MAX_KEYS_PER_ACCOUNT = 100;

const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export interface Principal {
  accountId: string;
  keyId: string;
  kind: 'api' | 'session';
}

/**
 * The one form of an e-mail address that register, login and lookups all use: trimmed, Unicode NFC,
 * lower-cased, without the trailing dot(s) of a fully qualified domain (`a@example.com.`), so each
 * of those variants reaches the same account.
 */
export function normaliseEmail(raw: string): string {
  const email = raw.trim().normalize('NFC').toLowerCase().replace(/\.+$/, '');
  // Deliberately loose: one @, something on both sides, a dot in the domain, no spaces or controls.
  if (email.length > 320 || !/^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(email)) {
    throw invalid('email', 'must be an e-mail address');
  }
  return email;
}

export function checkPassword(password: string): void {
  if (password.length < 8) throw invalid('password', 'must be at least 8 characters');
  if (password.length > 1024) throw invalid('password', 'must be at most 1024 characters');
  if (!password.trim()) throw invalid('password', 'must not be only spaces');
  if (COMMON_PASSWORDS.has(password.trim().toLowerCase())) {
    throw invalid('password', 'is one of the most common passwords; choose another');
  }
}

/** GET /v1/account's read, on every call of the cheapest authenticated request. */
/** The account's password hash as `tx` sees it (after its row lock: the last committed one). */
async function passwordHashOf(tx: Tx, accountId: string): Promise<string | undefined> {
  const row = await tx
    .selectFrom('accounts')
    .select('password_hash')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row?.password_hash;
}

const accountById = new PreparedQuery((db, p: { id: string }) =>
  db
    .selectFrom('accounts')
    .select(['id', 'email', 'balance', 'created_at', 'webhook_secret'])
    .where('id', '=', p.id),
);

export class Accounts {
  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly sessionTtlMs: number,
  ) {}

  async register(rawEmail: string, password: string) {
    const email = normaliseEmail(rawEmail);
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    const accountId = newId('acc');
    const now = Date.now();
    const secret = newSecret(API_KEY_PREFIX);
    const keyId = newId('key');
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx
          .insertInto('accounts')
          .values({
            id: accountId,
            email,
            password_hash: passwordHash,
            webhook_secret: newWebhookSecret(),
            balance: 0,
            created_at: now,
          })
          .execute();
        await tx
          .insertInto('api_keys')
          .values({
            id: keyId,
            account_id: accountId,
            name: 'default',
            prefix: displayPrefix(secret),
            key_hash: hashToken(secret),
            kind: 'api',
            created_at: now,
            last_used_at: null,
            revoked_at: null,
            expires_at: null,
          })
          .execute();
        await this.ledger.grant(accountId, FREE_CREDITS_AT_REGISTRATION, 'Free credits at registration', tx);
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError('conflict', 'An account with this e-mail already exists');
      throw err;
    }
    return { accountId, email, apiKey: secret, keyId, credits: FREE_CREDITS_AT_REGISTRATION };
  }

  /**
   * Checks e-mail and password and issues a 24-hour session token. Same answer for both failures.
   * The session is inserted holding the account row's lock, and only if the password is still the
   * one checked: a login that began before a password change ends either before the change (whose
   * transaction then sees and ends its session) or after it (and fails), never with a live session
   * made with the old password.
   */
  async login(rawEmail: string, password: string) {
    const email = normaliseEmail(rawEmail);
    const account = await this.db
      .selectFrom('accounts')
      .select(['id', 'email', 'password_hash'])
      .where('email', '=', email)
      .executeTakeFirst();
    const ok = await verifyPassword(password, account?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!account || !ok) throw new AppError('unauthorized', 'Invalid e-mail or password');
    const token = newSecret(SESSION_PREFIX);
    const now = Date.now();
    const expiresAt = now + this.sessionTtlMs;
    await this.db.transaction().execute(async (tx) => {
      await lockAccountRow(tx, account.id);
      if ((await passwordHashOf(tx, account.id)) !== account.password_hash) {
        throw new AppError('unauthorized', 'Invalid e-mail or password');
      }
      await tx
        .insertInto('api_keys')
        .values({
          id: newId('sess'),
          account_id: account.id,
          name: 'session',
          prefix: displayPrefix(token),
          key_hash: hashToken(token),
          kind: 'session',
          created_at: now,
          last_used_at: null,
          revoked_at: null,
          expires_at: expiresAt,
        })
        .execute();
    });
    return { accountId: account.id, email: account.email, token, expiresAt };
  }

  /**
   * Creates an API key unless the account already holds the maximum. The count and the insert run in
   * one transaction holding the account row's lock, so concurrent creations (on any process) are
   * counted one after the other and can never pass the cap together.
   */
  async createKey(accountId: string, name: string) {
    const trimmed = name.trim();
    if (!trimmed) throw invalid('name', 'must not be empty');
    const secret = newSecret(API_KEY_PREFIX);
    const row = {
      id: newId('key'),
      account_id: accountId,
      name: trimmed,
      prefix: displayPrefix(secret),
      key_hash: hashToken(secret),
      kind: 'api' as const,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
      expires_at: null,
    };
    await this.db.transaction().execute(async (tx) => {
      await lockAccountRow(tx, accountId);
      if ((await this.activeKeys(tx, accountId)) >= MAX_KEYS_PER_ACCOUNT) {
        throw new AppError(
          'conflict',
          `An account may hold at most ${MAX_KEYS_PER_ACCOUNT} active keys; revoke one first`,
        );
      }
      await tx.insertInto('api_keys').values(row).execute();
    });
    return { id: row.id, name: row.name, key: secret, prefix: row.prefix, createdAt: row.created_at };
  }

  private async activeKeys(tx: Tx, accountId: string): Promise<number> {
    const active = await tx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('kind', '=', 'api')
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(active?.n ?? 0);
  }

  async listKeys(accountId: string) {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'api')
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
    }));
  }

  /** Revokes one of the caller's keys; another account's or an unknown id is a 404. Idempotent. */
  async revokeKey(accountId: string, keyId: string) {
    return this.revoke(accountId, keyId, 'api');
  }

  /** The account's live sessions (neither revoked nor expired), oldest first; never a secret. */
  async listSessions(accountId: string, currentId: string | null) {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'prefix', 'created_at', 'last_used_at', 'expires_at'])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'session')
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', Date.now())
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      prefix: r.prefix,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      expiresAt: r.expires_at as number,
      current: r.id === currentId,
    }));
  }

  /** Ends one of the account's sessions; another account's or an unknown id is a 404. Idempotent. */
  async revokeSession(accountId: string, sessionId: string) {
    return this.revoke(accountId, sessionId, 'session');
  }

  /**
   * Ends the caller's own session (logout). An API key is refused: it is permanent and revoked only
   * explicitly, by its id, so a logout must never end it by surprise.
   */
  async logout(principal: Principal) {
    if (principal.kind !== 'session') {
      throw new AppError(
        'forbidden',
        'Logout ends a login session (uf_sess_… token); to revoke an API key use DELETE /v1/keys/{key_id}',
      );
    }
    return this.revoke(principal.accountId, principal.keyId, 'session');
  }

  /**
   * Revokes a key or session of the account; answers the row's hash so the caller can make this
   * process's authenticator forget it at once.
   */
  private async revoke(accountId: string, id: string, kind: 'api' | 'session') {
    const now = Date.now();
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .where('revoked_at', 'is', null)
      .execute();
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'key_hash', 'revoked_at'])
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .executeTakeFirst();
    if (!row || row.revoked_at === null) {
      throw new AppError('not_found', kind === 'api' ? 'API key not found' : 'Session not found');
    }
    return { id: row.id, revoked: true as const, revokedAt: row.revoked_at, keyHash: row.key_hash };
  }

  /**
   * A new webhook signing secret; the old one stops signing at once (receivers switch to the new
   * one). Answers the new secret.
   */
  async rotateWebhookSecret(accountId: string) {
    const webhookSecret = newWebhookSecret();
    const result = await this.db
      .updateTable('accounts')
      .set({ webhook_secret: webhookSecret })
      .where('id', '=', accountId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new AppError('not_found', 'account not found');
    return { webhookSecret };
  }

  /**
   * Changes the password after checking the current one, and ends every other login session (one
   * made with the old password may be someone else's). API keys stay unless `revokeApiKeys` asks to
   * end them all (the caller's own included): a key is not tied to the password that made it.
   * The change applies only if the password is still the one checked (two changes racing: one
   * wins, the other is a 409). Answers the hashes of the sessions and keys ended, for the caller to
   * make its authenticator forget them.
   */
  async changePassword(
    caller: Principal,
    currentPassword: string,
    newPassword: string,
    options: { revokeApiKeys?: boolean } = {},
  ) {
    const account = await this.db
      .selectFrom('accounts')
      .select(['id', 'password_hash'])
      .where('id', '=', caller.accountId)
      .executeTakeFirst();
    if (!account) throw new AppError('not_found', 'account not found');
    if (!(await verifyPassword(currentPassword, account.password_hash))) {
      throw new AppError('forbidden', 'The current password is not right', 'currentPassword');
    }
    checkPassword(newPassword);
    if (newPassword === currentPassword)
      throw invalid('newPassword', 'must differ from the current password');
    const passwordHash = await hashPassword(newPassword);
    const now = Date.now();
    return this.db.transaction().execute(async (tx) => {
      // The row's lock first: a login checking the old password waits for this change, then fails.
      await lockAccountRow(tx, account.id);
      if ((await passwordHashOf(tx, account.id)) !== account.password_hash) {
        throw new AppError('conflict', 'The password was changed meanwhile; log in again with the new one');
      }
      await tx
        .updateTable('accounts')
        .set({ password_hash: passwordHash })
        .where('id', '=', account.id)
        .execute();
      let others = tx
        .selectFrom('api_keys')
        .select(['id', 'key_hash', 'kind'])
        .where('account_id', '=', account.id)
        .where('kind', 'in', options.revokeApiKeys ? ['session', 'api'] : ['session'])
        .where('revoked_at', 'is', null);
      if (caller.kind === 'session') others = others.where('id', '!=', caller.keyId);
      const ended = await others.execute();
      if (ended.length > 0) {
        await tx
          .updateTable('api_keys')
          .set({ revoked_at: now })
          .where(
            'id',
            'in',
            ended.map((r) => r.id),
          )
          .execute();
      }
      return {
        changed: true as const,
        sessionsEnded: ended.filter((r) => r.kind === 'session').length,
        apiKeysRevoked: ended.filter((r) => r.kind === 'api').length,
        keyHashes: ended.map((r) => r.key_hash),
      };
    });
  }

  async getAccount(accountId: string) {
    const row = await accountById.executeTakeFirst(this.db, { id: accountId });
    if (!row) throw new AppError('not_found', 'account not found');
    return {
      id: row.id,
      email: row.email,
      credits: row.balance,
      createdAt: row.created_at,
      webhookSecret: row.webhook_secret,
    };
  }

  /** The account of an e-mail address, as register and login find it; none for a malformed one. */
  async findByEmail(rawEmail: string) {
    let email: string;
    try {
      email = normaliseEmail(rawEmail);
    } catch {
      return undefined;
    }
    return this.db
      .selectFrom('accounts')
      .select(['id', 'email', 'balance'])
      .where('email', '=', email)
      .executeTakeFirst();
  }
}
