// API keys and passwords: keys are high-entropy and stored as SHA-256; passwords use scrypt.
import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../ids.js';

export const API_KEY_PREFIX = 'uf_';
export const SESSION_PREFIX = 'uf_sess_';

/** A new secret token: the prefix plus 32 random bytes' worth of base62 (43 characters). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBase62(43)}`;
}

export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** What lists show of a key: enough to recognise it, never enough to use it. */
export function displayPrefix(token: string): string {
  return token.slice(0, token.startsWith(SESSION_PREFIX) ? 12 : 8);
}

// N = 2^15 keeps registration and login near 50 ms on a small machine; OWASP's minimum for scrypt
// at r=8, p=1 is N = 2^17 for new systems, so operators can raise it via the stored parameters.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLen: 32 };

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number, len: number) {
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(password, salt, len, { N: n, r, p, maxmem: 256 * n * r }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, all parameters kept so they can change without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLen);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(
    password,
    Buffer.from(salt, 'base64'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(actual, expected);
}

/** A hash to compare against when the e-mail is unknown, so both failures take the same time. */
export const DUMMY_PASSWORD_HASH = `scrypt$${SCRYPT.N}$8$1$${randomBytes(16).toString('base64')}$${randomBytes(32).toString('base64')}`;
