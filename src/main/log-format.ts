// Logs a person can read on a terminal: pino's JSON lines turned into `12:03:04 INFO  message  k=v`
// lines, with the stack of an error under it. Collectors get the JSON unchanged (LOG_FORMAT=json, or
// any output that is not a terminal).
import type { Config } from '../config.js';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const COLOURS: Record<number, string> = { 10: '90', 20: '90', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has, or that the line shows in its own place. */
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err', 'v']);

/** The messages of a request's one line (http/app.ts RequestLog). */
const REQUEST_LINES = new Set(['request completed', 'request errored']);

/**
 * A request's line read as `GET /v1/account 200 3.95 ms` and its other fields (the client's address,
 * the request id, route and account), else null. Pure.
 */
function requestLine(
  entry: Record<string, unknown>,
): { summary: string; rest: Record<string, unknown> } | null {
  const { req, res, responseTime, ...rest } = entry;
  if (!REQUEST_LINES.has(String(entry.msg)) || !isRecord(req) || !isRecord(res)) return null;
  const { method, url, ...otherReq } = req;
  const { statusCode, ...otherRes } = res;
  if (typeof method !== 'string' || typeof statusCode !== 'number') return null;
  const ms = typeof responseTime === 'number' ? ` ${responseTime} ms` : '';
  if (Object.keys(otherReq).length) rest.req = otherReq;
  if (Object.keys(otherRes).length) rest.res = otherRes;
  return { summary: `${method} ${String(url)} ${statusCode}${ms}`, rest };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function flatten(value: unknown, prefix: string, out: string[]): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  out.push(`${prefix}=${/\s/.test(text) ? JSON.stringify(text) : text}`);
}

/** One JSON log line as one readable line (and an error's stack below it). Pure. */
export function formatLogLine(json: string, colour: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const name = (LEVELS[level] ?? String(level)).padEnd(5);
  const tag = colour ? `\u001b[${COLOURS[level] ?? '0'}m${name}\u001b[0m` : name;
  const fields: string[] = [];
  const request = requestLine(entry);
  for (const [k, v] of Object.entries(request?.rest ?? entry))
    if (!SHOWN_ELSEWHERE.has(k)) flatten(v, k, fields);
  const msg = request ? `${String(entry.msg)}: ${request.summary}` : String(entry.msg ?? '');
  let text = `${time} ${tag} ${msg}${fields.length ? `  ${fields.join(' ')}` : ''}\n`;
  const err = entry.err as { stack?: string; message?: string } | undefined;
  if (err) text += `${(err.stack ?? err.message ?? '').replace(/^/gm, '    ')}\n`;
  return text;
}

/** A pino destination writing readable lines to `out`. */
export function readableLogStream(out: NodeJS.WriteStream) {
  const colour = out.isTTY === true;
  return { write: (line: string) => out.write(formatLogLine(line, colour)) };
}

/** Where a process's logs go: readable lines on a terminal (or LOG_FORMAT=pretty), else pino's JSON. */
export function logDestination(config: Pick<Config, 'logFormat'>, out: NodeJS.WriteStream = process.stdout) {
  const readable = config.logFormat === 'pretty' || (config.logFormat === 'auto' && out.isTTY === true);
  return readable ? readableLogStream(out) : undefined;
}
