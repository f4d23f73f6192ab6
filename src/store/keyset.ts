// Keyset pagination over (created_at, id), newest first: a page after a cursor starts where the last
// one ended through the index, so its cost does not depend on how deep in the history it is (an
// offset makes the database count and skip every row before the page).
import { AppError } from '../errors.js';

export interface Position {
  createdAt: number;
  id: string;
}

/** The opaque cursor of a row: where the page after it starts. */
export function encodeCursor(p: Position): string {
  return Buffer.from(`${p.createdAt}.${p.id}`, 'utf8').toString('base64url');
}

// Exactly what encodeCursor writes: a time in plain decimal digits, a dot, an id.
const CURSOR_TEXT = /^(0|[1-9][0-9]{0,15})\.([A-Za-z0-9_-]{1,64})$/;

/**
 * Reads a cursor from a request; a 400 naming `parameter` when it is not one of ours. Only the form
 * encodeCursor writes is taken: no `1e3` or `0x10` times, no other spelling of the same bytes.
 */
export function decodeCursor(cursor: string, parameter = 'cursor'): Position {
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const position = match ? { createdAt: Number(match[1]), id: match[2]! } : null;
  if (!position || !Number.isSafeInteger(position.createdAt) || encodeCursor(position) !== cursor) {
    throw new AppError(
      'invalid_request',
      `Invalid parameter '${parameter}': not a cursor from a previous page's \`next\``,
      parameter,
    );
  }
  return position;
}

/**
 * Splits the `limit + 1` rows a page query read into the page and its `next` cursor (null when no
 * row follows the page: reading one more row tells that without counting).
 */
export function pageOf<R extends { created_at: number; id: string }>(rows: R[], limit: number) {
  if (rows.length <= limit) return { rows, next: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]!;
  return { rows: page, next: encodeCursor({ createdAt: Number(last.created_at), id: last.id }) };
}
