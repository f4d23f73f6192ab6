// Output for people (aligned tables, short lines) and for programs (--json: one JSON document on
// stdout). Errors always go to stderr.
import { UnfurlError } from '@unfurl/sdk';

export interface Output {
  json: boolean;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

export function printJson(o: Output, value: unknown) {
  o.out.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function line(o: Output, text = '') {
  o.out.write(`${text}\n`);
}

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v).replace(/\s+/g, ' ');
};

/** Columns padded to their widest cell; the last one is left unpadded. */
export function table(o: Output, headers: string[], rows: unknown[][]) {
  const cells = [headers, ...rows.map((r) => r.map(cell))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const r of cells) {
    line(
      o,
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    );
  }
}

/** `key  value` lines for one object. */
export function fields(o: Output, entries: [string, unknown][]) {
  const width = Math.max(...entries.map(([k]) => k.length));
  for (const [k, v] of entries) line(o, `${k.padEnd(width)}  ${cell(v)}`);
}

export const isoTime = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Hints a command adds to an error it lets through (printed after the error, or as `hint` in JSON). */
const hints = new WeakMap<object, string[]>();

/** Adds a line that says what to do about `err` when it is printed; answers `err` to rethrow. */
export function withHint<E>(err: E, hint: string): E {
  if (err && typeof err === 'object') hints.set(err, [...(hints.get(err) ?? []), hint]);
  return err;
}

/**
 * The server's words for people calling the HTTP API, in the commands of this client: the packages
 * are `unfurl credits`, not `GET /v1/credits/packages` (the 402 hint below says how to buy).
 */
export function cliWording(message: string): string {
  return message
    .replace(/ ?Buy more: GET \/v1\/credits\/packages, then POST \/v1\/credits\/purchase\.?/g, '')
    .replace(/GET \/v1\/credits\/packages/g, '`unfurl credits`')
    .replace(/POST \/v1\/credits\/purchase/g, '`unfurl credits buy PACKAGE`');
}

export function printError(o: Output, err: unknown) {
  const extra = (typeof err === 'object' && err !== null && hints.get(err)) || [];
  if (err instanceof UnfurlError) {
    const message = cliWording(err.message);
    if (o.json) {
      const { code, status, details, requestId } = err;
      const hint = extra.length ? { hint: extra.join('\n') } : {};
      o.err.write(`${JSON.stringify({ error: code, status, message, details, requestId, ...hint })}\n`);
      return;
    }
    const where = [err.code, err.status ? `HTTP ${err.status}` : null, err.requestId]
      .filter(Boolean)
      .join(', ');
    o.err.write(`error: ${message} (${where})\n`);
    if (err.details && !message.includes(err.details)) o.err.write(`  details: ${err.details}\n`);
    for (const hint of extra) o.err.write(`  ${hint}\n`);
    if (err.status === 402 || err.code === 'insufficient_credits') {
      o.err.write(
        '  see the packages with `unfurl credits`, then buy one with `unfurl credits buy PACKAGE`\n',
      );
    }
    return;
  }
  o.err.write(`error: ${(err as Error)?.message ?? String(err)}\n`);
  for (const hint of extra) o.err.write(`  ${hint}\n`);
}
