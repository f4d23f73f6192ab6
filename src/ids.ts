// Random identifiers: prefixed ids of our own records (acc_, key_, job_, txn_ …) and random base62 text
// for secrets and references. Used by every layer, so it sits beside config and errors.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn in blocks: one system call serves many ids (one per request, at least).
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let used = 0;

function nextByte(): number {
  if (used === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    used = 0;
  }
  return pool[used++]!;
}

/** Random base62 text of the given length (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export type IdPrefix = 'acc' | 'key' | 'txn' | 'job' | 'req' | 'chk' | 'sess' | 'msg';

/** A random, prefixed identifier such as `acc_3kT…` (about 119 bits of randomness). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
