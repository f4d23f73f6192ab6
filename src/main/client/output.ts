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

export function printError(o: Output, err: unknown) {
  if (err instanceof UnfurlError) {
    if (o.json) {
      const { code, status, message, details, requestId } = err;
      o.err.write(`${JSON.stringify({ error: code, status, message, details, requestId })}\n`);
      return;
    }
    const where = [err.code, err.status ? `HTTP ${err.status}` : null, err.requestId]
      .filter(Boolean)
      .join(', ');
    o.err.write(`error: ${err.message} (${where})\n`);
    if (err.details && !err.message.includes(err.details)) o.err.write(`  details: ${err.details}\n`);
    if (err.status === 402 || err.code === 'insufficient_credits') {
      o.err.write(
        '  see the packages with `unfurl credits`, then buy one with `unfurl credits buy PACKAGE`\n',
      );
    }
    return;
  }
  o.err.write(`error: ${(err as Error)?.message ?? String(err)}\n`);
}
