// Record ids begin with their creation time, so new rows land at the end of the indexes keyed by
// them (and ledger writes cost the same however long an account's history is).
import { describe, expect, it } from 'vitest';
import { ID_LENGTH, newId } from '../../src/ids.js';

describe('newId', () => {
  it('is the prefix, then 25 base62 characters, and never repeats', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('txn'));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(new RegExp(`^txn_[0-9A-Za-z]{${ID_LENGTH}}$`));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts by creation time as text, in byte order and in a locale collation alike', async () => {
    const earlier = newId('job');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = newId('job');
    expect(earlier < later).toBe(true);
    expect(earlier.localeCompare(later, 'en')).toBe(-1);
    // The time part is the 9 characters after the prefix: base-36 milliseconds.
    const at = Number.parseInt(later.slice(4, 13), 36);
    expect(Math.abs(at - Date.now())).toBeLessThan(1000);
  });
});
