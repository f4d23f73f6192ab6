// The JSON a watch, channel or playlist page carries in its scripts. Pages have assigned it in
// several ways over the years — `var ytInitialData = {…};` (2021+), `window["ytInitialData"] = {…};`
// (2020), a JS string literal with \x escapes (mobile pages) — so the value is found by name and
// cut out with a string-aware brace scan instead of one brittle regular expression.

import { asArray, asString, dig, isRecord, type JsonRecord, textOf } from './tree.js';

/**
 * The end (exclusive) of the JSON object or array starting at `start`, counting brackets outside
 * strings; -1 when it never closes.
 */
export function jsonEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[') return -1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

const JS_ESCAPES: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

/** The value of a single- or double-quoted JS string literal starting at `start`, or null. */
function jsStringAt(text: string, start: number): string | null {
  const quote = text[start];
  if (quote !== "'" && quote !== '"') return null;
  let out = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === quote) return out;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = text[++i];
    if (e === undefined) return null;
    if (e === 'x' || e === 'u') {
      const len = e === 'x' ? 2 : 4;
      const hex = text.slice(i + 1, i + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) return null;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += len;
    } else out += JS_ESCAPES[e] ?? e;
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON value at `start`: an object literal, a JS string holding JSON, or `JSON.parse('…')`. */
function jsonValueAt(text: string, start: number): unknown {
  let at = start;
  while (at < text.length && /\s/.test(text[at]!)) at++;
  if (text.startsWith('JSON.parse(', at)) at += 'JSON.parse('.length;
  const c = text[at];
  if (c === '{' || c === '[') {
    const end = jsonEnd(text, at);
    return end < 0 ? undefined : parseJson(text.slice(at, end));
  }
  const literal = jsStringAt(text, at);
  return literal === null ? undefined : parseJson(literal);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The object a page assigns to `name` (`var name = …`, `window["name"] = …`, `window.name = …`),
 * or null. Every assignment is tried in order until one parses, so a mention of the name inside
 * other code does not end the search.
 */
export function extractAssignedJson(html: string, name: string): JsonRecord | null {
  const n = escapeRegExp(name);
  const assignment = new RegExp(`(?:\\b${n}|\\[\\s*["']${n}["']\\s*\\])\\s*=(?!=)`, 'g');
  for (let m = assignment.exec(html); m; m = assignment.exec(html)) {
    const value = jsonValueAt(html, m.index + m[0].length);
    if (isRecord(value)) return value;
  }
  return null;
}

/** ytInitialData of a watch, channel or playlist page, or null (consent, captcha, error pages). */
export function extractInitialData(html: string): JsonRecord | null {
  return extractAssignedJson(html, 'ytInitialData');
}

/**
 * ytInitialData out of a legacy `?pbj=1` answer: an array of parts (or one object) of which the
 * one with `response` holds it.
 */
export function initialDataFromPbj(pbj: unknown): JsonRecord | null {
  for (const part of Array.isArray(pbj) ? pbj : [pbj]) {
    const response = dig(part, 'response');
    if (isRecord(response)) return response;
  }
  return null;
}

export interface Ytcfg {
  /** INNERTUBE_API_KEY; null when absent or a placeholder. */
  apiKey: string | null;
  /** e.g. WEB, WEB_EMBEDDED_PLAYER. */
  clientName: string | null;
  /** e.g. 2.20230509.07.00. */
  clientVersion: string | null;
  visitorData: string | null;
  hl: string | null;
  gl: string | null;
  /** INNERTUBE_CONTEXT as the page gave it, for innertube requests made on the page's behalf. */
  context: JsonRecord | null;
}

const API_KEY = /^[A-Za-z0-9_-]{20,}$/;
const CLIENT_VERSION = /^\d+\.\d+/;

/**
 * The page's ytcfg: every `ytcfg.set({…})` object merged (later calls win). Calls whose argument
 * is not strict JSON are skipped; the API key falls back to a plain search of the page.
 */
export function extractYtcfg(html: string): Ytcfg {
  const merged: JsonRecord = {};
  const call = /ytcfg\.set\(\s*(?=\{)/g;
  for (let m = call.exec(html); m; m = call.exec(html)) {
    const start = m.index + m[0].length;
    const end = jsonEnd(html, start);
    if (end < 0) continue;
    const value = parseJson(html.slice(start, end));
    if (isRecord(value)) Object.assign(merged, value);
    call.lastIndex = end;
  }
  const context = isRecord(merged.INNERTUBE_CONTEXT) ? merged.INNERTUBE_CONTEXT : null;
  const client = dig(context, 'client');
  const pick = (...values: unknown[]) => {
    for (const v of values) if (asString(v)) return v as string;
    return null;
  };
  const apiKey =
    pick(merged.INNERTUBE_API_KEY) ?? /"INNERTUBE_API_KEY"\s*:\s*"([A-Za-z0-9_-]+)"/.exec(html)?.[1] ?? null;
  const version = pick(
    merged.INNERTUBE_CLIENT_VERSION,
    merged.INNERTUBE_CONTEXT_CLIENT_VERSION,
    dig(client, 'clientVersion'),
  );
  return {
    apiKey: apiKey && API_KEY.test(apiKey) ? apiKey : null,
    clientName: pick(merged.INNERTUBE_CLIENT_NAME, dig(client, 'clientName')),
    clientVersion: version && CLIENT_VERSION.test(version) ? version : null,
    visitorData: pick(merged.VISITOR_DATA, dig(client, 'visitorData')),
    hl: pick(merged.HL, dig(client, 'hl')),
    gl: pick(merged.GL, dig(client, 'gl')),
    context,
  };
}

/**
 * The text of the page's ERROR alert ("The playlist does not exist.", "This channel does not
 * exist."), or null. Warnings and info alerts ("Unavailable videos are hidden") are not errors.
 */
export function errorAlert(initialData: unknown): string | null {
  for (const alert of asArray(dig(initialData, 'alerts'))) {
    const renderer = dig(alert, 'alertRenderer') ?? dig(alert, 'alertWithButtonRenderer');
    if (dig(renderer, 'type') === 'ERROR') return textOf(dig(renderer, 'text')) ?? 'error';
  }
  return null;
}
