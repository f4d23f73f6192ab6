// Identifiers: time-ordered prefixed ids of our own records (acc_, key_, job_, txn_ …) and random
// base62 text for secrets and references. Used by every layer, so it sits beside config and errors.
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

export type IdPrefix = 'acc' | 'key' | 'txn' | 'job' | 'req' | 'chk' | 'sess' | 'msg' | 'mon' | 'evt';

/** Characters of an id after its prefix: the creation time, then the random part. */
export const ID_LENGTH = 25;

/**
 * A prefixed identifier such as `job_mifq0k3a97kT…`: the creation time in milliseconds (9 base-36
 * digits, so ids sort by time as text in any collation), then 16 random base62 characters (about 95
 * bits). Time first is for the indexes: new rows land at the end of every index keyed by an id
 * (ledger entries, jobs, request references), so a commit writes a few pages at the right edge
 * instead of one page per row scattered over the whole index, a cost that grew with the history.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${timePart()}${randomBase62(16)}`;
}

// The time part is written once per millisecond: a number in base 36 is slow to write (V8 formats a
// double digit by digit), and a busy process makes several ids every millisecond.
let lastMs = -1;
let lastTimePart = '';

function timePart(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTimePart = now.toString(36).padStart(9, '0');
  }
  return lastTimePart;
}
