// Tolerant access to the platform's JSON trees (ytInitialData, innertube answers). Renderer layouts
// drift with every A/B test, so parsers look things up by key wherever they sit instead of by long
// fixed paths, and nothing here throws on a missing or oddly typed node.

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A non-empty string, else null. */
export function asString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The value at a path of keys and array indexes, or undefined where the path breaks. */
export function dig(node: unknown, ...path: Array<string | number>): unknown {
  let at = node;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(at)) return undefined;
      at = at[step];
    } else {
      if (!isRecord(at)) return undefined;
      at = at[step];
    }
  }
  return at;
}

// Real pages nest ~60 levels; the cap only stops pathological input from exhausting the stack.
const MAX_DEPTH = 400;

/**
 * Every value stored under `key` anywhere in the tree, in document order (depth first, keys in
 * insertion order). Matched values are searched too, so nested matches are all returned.
 */
export function findAll(node: unknown, key: string): unknown[] {
  const found: unknown[] = [];
  const visit = (at: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(at)) {
      for (const item of at) if (typeof item === 'object' && item !== null) visit(item, depth + 1);
    } else if (isRecord(at)) {
      for (const k in at) {
        const v = at[k];
        if (k === key) found.push(v);
        if (typeof v === 'object' && v !== null) visit(v, depth + 1);
      }
    }
  };
  visit(node, 0);
  return found;
}

/** The first value under `key` in document order, or undefined. */
export function findFirst(node: unknown, key: string): unknown {
  let result: unknown;
  let done = false;
  const visit = (at: unknown, depth: number): void => {
    if (done || depth > MAX_DEPTH) return;
    if (Array.isArray(at)) {
      for (const item of at) {
        if (typeof item === 'object' && item !== null) visit(item, depth + 1);
        if (done) return;
      }
    } else if (isRecord(at)) {
      for (const k in at) {
        const v = at[k];
        if (k === key) {
          result = v;
          done = true;
          return;
        }
        if (typeof v === 'object' && v !== null) visit(v, depth + 1);
        if (done) return;
      }
    }
  };
  visit(node, 0);
  return result;
}

/**
 * Display text of a text node in any of the platform's forms: a plain string, `{simpleText}`,
 * `{runs: [{text}]}` (joined), or a view model's attributed string `{content}`. Null when absent.
 */
export function textOf(node: unknown): string | null {
  if (typeof node === 'string') return node;
  if (!isRecord(node)) return null;
  if (typeof node.simpleText === 'string') return node.simpleText;
  if (Array.isArray(node.runs)) {
    let out = '';
    let any = false;
    for (const run of node.runs) {
      const t = dig(run, 'text');
      if (typeof t === 'string') {
        out += t;
        any = true;
      }
    }
    return any ? out : null;
  }
  if (typeof node.content === 'string') return node.content;
  return null;
}

/**
 * URL of the widest image of an image node: `{thumbnails: [...]}` (renderers), `{sources: [...]}`
 * (view models), `{image: {sources}}`, or a bare array of `{url, width}`. Protocol-relative URLs
 * (`//yt3.ggpht.com/…`, common in 2020 pages) get https.
 */
export function bestImage(node: unknown): string | null {
  let list: unknown = node;
  if (isRecord(node)) list = node.thumbnails ?? node.sources ?? dig(node, 'image', 'sources');
  let best: string | null = null;
  let bestWidth = -1;
  for (const item of asArray(list)) {
    const url = asString(dig(item, 'url'));
    if (!url) continue;
    const w = dig(item, 'width');
    const width = typeof w === 'number' ? w : 0;
    // Equal (or missing) widths: later entries are the larger ones in every layout seen.
    if (width >= bestWidth) {
      best = url;
      bestWidth = width;
    }
  }
  return best ? absoluteUrl(best) : null;
}

/** `//host/path` → `https://host/path`; `/path` → on www.youtube.com; http → https. */
export function absoluteUrl(url: string): string {
  if (url.startsWith('//')) return `https:${url}`;
  if (url.startsWith('/')) return `https://www.youtube.com${url}`;
  if (url.startsWith('http://')) return `https://${url.slice(7)}`;
  return url;
}

/**
 * Token of a continuation node: `continuationItemRenderer` (2021+: `continuationEndpoint` or a
 * "Show more" `button`), `nextContinuationData` / `reloadContinuationData` (2020), or any
 * `continuationCommand` inside it.
 */
export function continuationToken(node: unknown): string | null {
  if (!isRecord(node)) return null;
  const direct =
    asString(dig(node, 'continuationEndpoint', 'continuationCommand', 'token')) ??
    asString(dig(node, 'button', 'buttonRenderer', 'command', 'continuationCommand', 'token')) ??
    asString(dig(node, 'nextContinuationData', 'continuation')) ??
    asString(dig(node, 'continuation'));
  if (direct) return direct;
  return asString(dig(findFirst(node, 'continuationCommand'), 'token'));
}
