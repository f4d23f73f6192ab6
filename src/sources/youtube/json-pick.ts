// Some top-level members of a large JSON object, without decoding or parsing the rest: a player
// answer is ~200 KB of which we use a few KB. One pass finds the root object's members by their
// structure (strings with escapes skipped by memchr, brackets matched by kind), then only the wanted
// values are decoded and JSON.parse'd. Pure. Anything it is not sure of — not an object, unbalanced
// or mismatched brackets, an unterminated string, a missing colon or comma, trailing bytes, a wanted
// value JSON.parse refuses — answers null, and the caller parses the whole body instead. Scalars
// inside members it skips are not validated (it matches structure, not every token).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(buf: Buffer, i: number): number {
  while (isSpace(buf[i])) i++;
  return i;
}

/** The index just past the string whose opening quote is at `i`; -1 when it never ends. */
function stringEnd(buf: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, from);
    if (q < 0) return -1;
    // A quote ends the string unless an odd run of backslashes escapes it.
    let slashes = 0;
    while (q - slashes - 1 > i && buf[q - slashes - 1] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index just past the object or array that opens at `i`; -1 when its brackets do not balance. */
function containerEnd(buf: Buffer, i: number): number {
  // Which closer each open level waits for; the depth only grows with input, so an array suffices.
  const closers: number[] = [];
  const n = buf.length;
  while (i < n) {
    const c = buf[i]!;
    if (c === QUOTE) {
      i = stringEnd(buf, i);
      if (i < 0) return -1;
      continue;
    }
    if (c === OPEN_OBJECT) closers.push(CLOSE_OBJECT);
    else if (c === OPEN_ARRAY) closers.push(CLOSE_ARRAY);
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (closers.pop() !== c) return -1;
      if (closers.length === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** The index just past the value that starts at `i`; -1 when there is none or it does not end. */
function valueEnd(buf: Buffer, i: number): number {
  const c = buf[i];
  if (c === QUOTE) return stringEnd(buf, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) return containerEnd(buf, i);
  // A number or literal: up to the next delimiter (what it is, JSON.parse checks if it is wanted).
  let j = i;
  while (j < buf.length) {
    const d = buf[j]!;
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY || isSpace(d) || d === QUOTE) break;
    if (d === OPEN_OBJECT || d === OPEN_ARRAY || d === COLON) return -1;
    j++;
  }
  return j > i ? j : -1;
}

function parseSlice(buf: Buffer, start: number, end: number): unknown {
  return JSON.parse(buf.toString('utf8', start, end));
}

/**
 * The members of the root object of `body` named in `keys` (absent ones left out; a repeated key
 * is its last value, as JSON.parse has it), or null when the body is not clearly one JSON object.
 */
export function pickMembers(body: Buffer, keys: readonly string[]): Record<string, unknown> | null {
  const wanted = new Set(keys);
  const at = new Map<string, [number, number]>();
  let i = skipSpace(body, 0);
  if (body[i] !== OPEN_OBJECT) return null;
  i = skipSpace(body, i + 1);
  if (body[i] === CLOSE_OBJECT) {
    i++;
  } else {
    for (;;) {
      if (body[i] !== QUOTE) return null;
      const keyEnd = stringEnd(body, i);
      if (keyEnd < 0) return null;
      // Keys with escapes are decoded the way JSON.parse would; plain ones are read as they are.
      let key = body.toString('utf8', i + 1, keyEnd - 1);
      if (key.includes('\\')) {
        try {
          key = parseSlice(body, i, keyEnd) as string;
        } catch {
          return null;
        }
      }
      i = skipSpace(body, keyEnd);
      if (body[i] !== COLON) return null;
      const start = skipSpace(body, i + 1);
      const end = valueEnd(body, start);
      if (end < 0) return null;
      if (wanted.has(key)) at.set(key, [start, end]);
      i = skipSpace(body, end);
      if (body[i] === COMMA) {
        i = skipSpace(body, i + 1);
        continue;
      }
      if (body[i] !== CLOSE_OBJECT) return null;
      i++;
      break;
    }
  }
  if (skipSpace(body, i) !== body.length) return null;
  const out: Record<string, unknown> = {};
  try {
    for (const [key, [start, end]] of at) {
      // Defined, not assigned: a wanted "__proto__" stays an own member, as JSON.parse makes it.
      Object.defineProperty(out, key, {
        value: parseSlice(body, start, end),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  } catch {
    return null;
  }
  return out;
}
