// pickMembers against JSON.parse: on the real player captures, on generated JSON whose strings and
// keys are full of quotes, backslashes and brackets, and on broken bodies (truncated, unbalanced,
// mismatched, trailing bytes), where it must answer null — never a wrong member, never a throw.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pickMembers } from '../../../src/sources/youtube/json-pick.js';
import { PLAYER_MEMBERS, parsePlayer } from '../../../src/sources/youtube/player.js';
import { parseStreams, STREAM_MEMBERS } from '../../../src/sources/youtube/streams.js';
import { CAPTURES } from '../../support/youtube-captures.js';

/** Every JSON object capture of the platform (player answers and watch-page JSON). */
function jsonCaptures(): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = [];
  for (const dir of fs.readdirSync(CAPTURES)) {
    const full = path.join(CAPTURES, dir);
    if (!fs.statSync(full).isDirectory()) continue;
    for (const name of fs.readdirSync(full)) {
      if (!/\.json(\.static)?$/.test(name)) continue;
      out.push([`${dir}/${name}`, fs.readFileSync(path.join(full, name))]);
    }
  }
  return out;
}

const captures = jsonCaptures();

/** What JSON.parse has for `keys` of the object in `text`; null where the root is no object. */
function expected(text: string, keys: readonly string[]): Record<string, unknown> | null {
  const all = JSON.parse(text) as unknown;
  if (!all || typeof all !== 'object' || Array.isArray(all)) return null;
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (Object.hasOwn(all, key)) {
      Object.defineProperty(out, key, { value: (all as Record<string, unknown>)[key], enumerable: true });
    }
  }
  return out;
}

const pick = (text: string, keys: readonly string[]) => pickMembers(Buffer.from(text, 'utf8'), keys);
/** `text` as it comes back from UTF-8 bytes (a lone surrogate becomes U+FFFD). */
const viaBytes = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

describe('pickMembers on real captures', () => {
  it('finds the player captures', () => {
    expect(captures.length).toBeGreaterThanOrEqual(10);
  });

  it.each(captures)(
    '%s: every top-level member, and the player members, as JSON.parse has them',
    (_, body) => {
      const text = body.toString('utf8');
      // The watch pages' JSON is an array: no members, null.
      const keys = Object.keys(JSON.parse(text) as object);
      expect(pickMembers(body, keys)).toEqual(expected(text, keys));
      const used = [...PLAYER_MEMBERS, ...STREAM_MEMBERS, 'noSuchMember'];
      expect(pickMembers(body, used)).toEqual(expected(text, used));
    },
  );

  it.each(captures)('%s: parsePlayer and parseStreams read the same from the picked members', (_, body) => {
    const full = JSON.parse(body.toString('utf8')) as unknown;
    expect(parsePlayer(pickMembers(body, PLAYER_MEMBERS))).toEqual(parsePlayer(full));
    expect(parseStreams(pickMembers(body, STREAM_MEMBERS))).toEqual(parseStreams(full));
  });

  it('answers null for every strict prefix of a capture (a truncated answer)', () => {
    const [, body] = captures.find(([name]) => name.endsWith('youtube.innertube.json.static'))!;
    const end = body.toString('utf8').trimEnd().length;
    for (let cut = 0; cut < end; cut += 61) {
      expect(pickMembers(body.subarray(0, cut), PLAYER_MEMBERS)).toBeNull();
    }
    for (let cut = end - 40; cut < end; cut++) {
      expect(pickMembers(body.subarray(0, cut), PLAYER_MEMBERS)).toBeNull();
    }
  });
});

describe('pickMembers on hand-made bodies', () => {
  it('takes only root members: the same key nested or inside a string is not one', () => {
    const text = '{"x":"\\"captions\\":{}","y":{"captions":1},"z":["captions",{"captions":2}],"captions":3}';
    expect(pick(text, ['captions'])).toEqual({ captions: 3 });
  });

  it('reads escaped keys and backslashes before quotes the way JSON.parse does', () => {
    expect(pick('{"capt\\u0069ons":{"a":"\\\\"},"b":"\\\\\\""}', ['captions', 'b'])).toEqual({
      captions: { a: '\\' },
      b: '\\"',
    });
    expect(pick('{"a\\\\":1,"a":2}', ['a\\', 'a'])).toEqual({ 'a\\': 1, a: 2 });
  });

  it('keeps the last of a repeated key, as JSON.parse does', () => {
    expect(pick('{"a":1,"b":2,"a":{"c":[3]}}', ['a'])).toEqual({ a: { c: [3] } });
  });

  it('takes scalars, empty containers, whitespace and non-ASCII', () => {
    const text = ' \r\n\t{ "n" : -1.5e3 , "t":true,"f" :false,"z":null,"o":{},"l":[],"s":"é😀\u2028" }\n';
    const keys = ['n', 't', 'f', 'z', 'o', 'l', 's'];
    expect(pick(text, keys)).toEqual(expected(text, keys));
    expect(pick('{}', ['a'])).toEqual({});
  });

  it('keeps a "__proto__" member an own member', () => {
    const got = pick('{"__proto__":{"polluted":true}}', ['__proto__']);
    expect(Object.hasOwn(got!, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['whitespace only', '  \n'],
    ['an array', '[{"captions":1}]'],
    ['a string', '"captions"'],
    ['a byte-order mark', '\ufeff{"captions":1}'],
    ['unclosed root', '{"captions":1'],
    ['unclosed member', '{"captions":{"a":[1,2]}'],
    ['unterminated string', '{"captions":"abc}'],
    ['escaped closing quote', '{"captions":"abc\\"}'],
    ['mismatched brackets', '{"captions":[1}]}'],
    ['a closer too many', '{"captions":[1]]}'],
    ['brackets closed by the wrong kind in a skipped member', '{"x":{"y":[1}],"captions":2}'],
    ['trailing bytes', '{"captions":1} x'],
    ['two objects', '{"captions":1}{"b":2}'],
    ['trailing comma', '{"captions":1,}'],
    ['a lone comma', '{,}'],
    ['missing colon', '{"captions" 1}'],
    ['missing comma', '{"a":1 "captions":2}'],
    ['missing value', '{"captions":}'],
    ['a key that is no string', '{captions:1}'],
    ['a wanted value JSON.parse refuses', '{"captions":tru}'],
    ['a wanted string with a raw newline', '{"captions":"a\nb"}'],
  ])('%s → null', (_, text) => {
    expect(pick(text, ['captions', 'a', 'b'])).toBeNull();
  });

  it('takes a deeply nested member it skips without recursion', () => {
    const text = `{"deep":${'['.repeat(200_000)}${']'.repeat(200_000)},"captions":1}`;
    expect(pick(text, ['captions'])).toEqual({ captions: 1 });
  });
});

// Strings built from the characters a scanner trips on.
const trickyString = fc.string({
  unit: fc.constantFrom(
    '"',
    '\\',
    '{',
    '}',
    '[',
    ']',
    ':',
    ',',
    ' ',
    '\n',
    'a',
    'é',
    '😀',
    '\u2028',
    '\u0000',
  ),
  maxLength: 12,
});
const anyKey = fc.oneof(
  trickyString,
  fc.constantFrom('captions', 'videoDetails', '__proto__', ''),
  fc.string(),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(anyKey, tie('node'), { maxKeys: 4 }),
  ),
})).node;
const root = fc.dictionary(anyKey, value, { maxKeys: 8 });
const spacing = fc.constantFrom(undefined, 0, 1, '\t', ' \r\n ');

describe('pickMembers, property', () => {
  it('equals JSON.parse on generated objects, for any wanted keys', () => {
    fc.assert(
      fc.property(root, spacing, fc.array(anyKey, { maxLength: 4 }), (object, space, extra) => {
        const text = JSON.stringify(object, null, space);
        const keys = [...Object.keys(object).filter((_, i) => i % 2 === 0), ...extra];
        expect(pick(text, keys)).toEqual(expected(text, keys));
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on a mangled body, and what it answers for one JSON.parse takes is right', () => {
    fc.assert(
      fc.property(
        root,
        fc.nat(),
        fc.nat({ max: 3 }),
        fc.constantFrom('"', '\\', '{', '}', '[', ']', ':', ',', '', 'x'),
        (object, at, removed, inserted) => {
          const text = JSON.stringify(object);
          const i = at % (text.length + 1);
          // A cut may split a surrogate pair: compare with what the bytes say, as the app reads them.
          const mangled = viaBytes(text.slice(0, i) + inserted + text.slice(i + removed));
          const keys = Object.keys(object);
          const got = pick(mangled, keys);
          try {
            JSON.parse(mangled);
          } catch {
            return; // not JSON: null, or the members of what still balances — either way no throw
          }
          expect(got).toEqual(expected(mangled, keys));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
