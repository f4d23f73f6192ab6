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

/** Reads a cursor from a request; a 400 naming `parameter` when it is not one of ours. */
export function decodeCursor(cursor: string, parameter = 'cursor'): Position {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const createdAt = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot <= 0 || !Number.isSafeInteger(createdAt) || createdAt < 0 || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    throw new AppError(
      'invalid_request',
      `Invalid parameter '${parameter}': not a cursor from a previous page's \`next\``,
      parameter,
    );
  }
  return { createdAt, id };
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
