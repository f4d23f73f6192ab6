// A monitor's Atom feed: whatever upstream text goes in (markup, `]]>`, control characters, lone
// surrogates), the document parses with a real XML parser (jsdom's DOMParser, strict XML via saxes),
// the text comes back as text, and RFC 4287's required elements are there in the given order.
import fc from 'fast-check';
import { JSDOM } from 'jsdom';
import { afterAll, describe, expect, it } from 'vitest';
import { type AtomEntry, type AtomFeed, renderAtomFeed } from '../../src/monitors/atom.js';

// The few DOM members used here (the project keeps the DOM library out of its types).
interface XmlElement {
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly textContent: string | null;
  readonly children: ArrayLike<XmlElement>;
  getAttribute(name: string): string | null;
}
interface XmlDocument {
  readonly documentElement: XmlElement;
  getElementsByTagName(name: string): ArrayLike<XmlElement>;
}
type XmlWindow = { DOMParser: new () => { parseFromString(text: string, type: string): XmlDocument } };

const ATOM = 'http://www.w3.org/2005/Atom';
const dom = new JSDOM('');
const window = dom.window as unknown as XmlWindow;
afterAll(() => dom.window.close());

/** Parses strictly as XML; fails the test with the parser's message if the document is not well-formed. */
function parse(xml: string): XmlDocument {
  const doc = new window.DOMParser().parseFromString(xml, 'application/xml');
  const errors = doc.getElementsByTagName('parsererror');
  if (errors.length > 0) throw new Error(`not well-formed XML: ${errors[0]!.textContent}`);
  return doc;
}

const kids = (el: XmlElement, name: string) =>
  Array.from(el.children).filter((c) => c.localName === name && c.namespaceURI === ATOM);
function one(el: XmlElement, name: string): XmlElement {
  const found = kids(el, name);
  expect(found, `exactly one <${name}> in <${el.localName}>`).toHaveLength(1);
  return found[0]!;
}
const text = (el: XmlElement, name: string) => one(el, name).textContent;

/** What survives: XML 1.0's Char production, computed by code point independently of the renderer. */
function xmlChars(s: string): string {
  return Array.from(s)
    .filter((ch) => {
      const cp = ch.codePointAt(0)!;
      if (cp === 0x9 || cp === 0xa || cp === 0xd) return true;
      return (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
    })
    .join('');
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const T0 = Date.parse('2026-10-25T08:00:00Z');

const HOSTILE = [
  '<script>alert("x")</script>',
  'Tom & Jerry\'s <b>bold</b> "quoted"',
  'ends a CDATA ]]> and <![CDATA[ starts one',
  'controls:\u0000\u0001\u0008\u000b\u000c\u001f\u007f end',
  'emoji 🎉👩‍👩‍👧 and astral 𝄞',
  'lone surrogates \ud800 and \udfff and reversed \udc00\ud83d',
  'non-characters \ufffe\uffff kept \ufffd',
  'tab\tnewline\ncarriage\r\nreturn\r',
  '&amp; already escaped &lt;',
];

function hostileFeed(): AtomFeed {
  return {
    id: 'mon_123',
    title: `Watch: ${HOSTILE.join(' | ')}`,
    selfUrl: 'https://api.example.com/v1/monitors/mon_123/feed.atom?token=tok_a&b=<c>"',
    alternateUrl: 'https://www.youtube.com/@channel?x=1&y=2',
    updated: T0,
    entries: HOSTILE.map(
      (h, i): AtomEntry => ({
        id: `evt_${i}`,
        title: h,
        updated: T0 - i * 3_600_000,
        published: T0 - i * 3_600_000 - 1000,
        link: `https://www.youtube.com/watch?v=${i}&t=1`,
        summary: `summary ${h}`,
        content: `--- a\n+++ b\n-${h}\n+<img src=x onerror=alert(1)>`,
      }),
    ),
  };
}

describe('renderAtomFeed', () => {
  it('hostile texts still make a well-formed document, and come back as the same text', () => {
    const feed = hostileFeed();
    const xml = renderAtomFeed(feed);
    expect(
      xml.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'),
    ).toBe(true);
    const doc = parse(xml);
    const root = doc.documentElement;
    expect(root.localName).toBe('feed');
    expect(root.namespaceURI).toBe(ATOM);
    expect(text(root, 'title')).toBe(xmlChars(feed.title));
    const entries = kids(root, 'entry');
    expect(entries).toHaveLength(HOSTILE.length);
    entries.forEach((entry, i) => {
      const given = feed.entries[i]!;
      expect(text(entry, 'title')).toBe(xmlChars(given.title));
      expect(text(entry, 'summary')).toBe(xmlChars(given.summary));
      expect(text(entry, 'content')).toBe(xmlChars(given.content!));
      for (const name of ['title', 'summary', 'content'])
        expect(one(entry, name).getAttribute('type')).toBe('text');
    });
    // Markup in the input stays text: no element of another name appears anywhere.
    for (const tag of ['script', 'b', 'img']) expect(doc.getElementsByTagName(tag)).toHaveLength(0);
    // A carriage return survives (as &#13;) rather than being folded into a newline by the parser.
    expect(text(entries[7]!, 'title')).toBe('tab\tnewline\ncarriage\r\nreturn\r');
  });

  it('has the feed elements RFC 4287 requires, the self link exactly as given', () => {
    const feed = hostileFeed();
    const root = parse(renderAtomFeed(feed)).documentElement;
    expect(text(root, 'id')).toBe('urn:unfurl:monitor:mon_123');
    expect(text(root, 'updated')).toBe('2026-10-25T08:00:00.000Z');
    expect(text(one(root, 'author'), 'name')).toBe('Unfurl');
    expect(text(root, 'generator')).toBe('Unfurl');
    const links = kids(root, 'link');
    const self = links.find((l) => l.getAttribute('rel') === 'self');
    expect(self?.getAttribute('href')).toBe(feed.selfUrl);
    expect(self?.getAttribute('type')).toBe('application/atom+xml');
    const alternate = links.find((l) => l.getAttribute('rel') === 'alternate');
    expect(alternate?.getAttribute('href')).toBe(feed.alternateUrl);
  });

  it('entries keep the given order, with ids, links and RFC 3339 timestamps', () => {
    const feed = hostileFeed();
    const entries = kids(parse(renderAtomFeed(feed)).documentElement, 'entry');
    expect(entries.map((e) => text(e, 'id'))).toEqual(HOSTILE.map((_, i) => `urn:unfurl:event:evt_${i}`));
    entries.forEach((entry, i) => {
      const given = feed.entries[i]!;
      const updated = text(entry, 'updated')!;
      const published = text(entry, 'published')!;
      expect(updated).toMatch(RFC3339);
      expect(published).toMatch(RFC3339);
      expect(Date.parse(updated)).toBe(given.updated);
      expect(Date.parse(published)).toBe(given.published);
      const link = one(entry, 'link');
      expect(link.getAttribute('rel')).toBe('alternate');
      expect(link.getAttribute('href')).toBe(given.link);
    });
  });

  it('leaves out optional parts, keeps non-web links out, and gives a linkless entry content', () => {
    const xml = renderAtomFeed({
      id: 'mon 1/ü',
      title: '',
      selfUrl: 'https://api.example.com/feed.atom?token=t',
      alternateUrl: 'javascript:alert(1)',
      updated: T0,
      entries: [
        { id: 'e1', title: 'no link', updated: T0, summary: 'only a summary' },
        { id: 'e2', title: 'bad link', updated: T0, link: 'data:text/html,<script>', summary: 's2' },
        { id: 'e3', title: 'web link', updated: T0, link: 'https://example.com/a', summary: 's3' },
      ],
    });
    const root = parse(xml).documentElement;
    expect(text(root, 'id')).toBe('urn:unfurl:monitor:mon%201%2F%C3%BC');
    expect(text(root, 'title')).toBe('');
    expect(kids(root, 'link').map((l) => l.getAttribute('rel'))).toEqual(['self']);
    const [e1, e2, e3] = kids(root, 'entry');
    for (const e of [e1!, e2!, e3!]) expect(kids(e, 'published')).toHaveLength(0);
    // RFC 4287 §4.1.2: without an alternate link an entry must carry content: the summary stands in.
    expect(kids(e1!, 'link')).toHaveLength(0);
    expect(text(e1!, 'content')).toBe('only a summary');
    expect(kids(e2!, 'link')).toHaveLength(0);
    expect(text(e2!, 'content')).toBe('s2');
    expect(one(e3!, 'link').getAttribute('href')).toBe('https://example.com/a');
    expect(kids(e3!, 'content')).toHaveLength(0);
    expect(xml).not.toContain('javascript:');
    expect(xml).not.toContain('data:text');
  });

  it('an empty feed is still a valid document', () => {
    const root = parse(
      renderAtomFeed({ id: 'm', title: 't', selfUrl: 'https://x.test/f', updated: T0, entries: [] }),
    ).documentElement;
    expect(kids(root, 'entry')).toHaveLength(0);
    expect(text(root, 'updated')).toMatch(RFC3339);
  });

  it('any text at all, lone surrogates and controls included, parses and round-trips', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        (title, summary, id) => {
          const root = parse(
            renderAtomFeed({
              id,
              title,
              selfUrl: 'https://x.test/f?token=a&b',
              updated: T0,
              entries: [{ id, title, summary, content: title + summary, updated: T0 }],
            }),
          ).documentElement;
          expect(text(root, 'title')).toBe(xmlChars(title));
          const entry = one(root, 'entry');
          expect(text(entry, 'summary')).toBe(xmlChars(summary));
          expect(text(entry, 'content')).toBe(xmlChars(title + summary));
          expect(text(entry, 'id')).toMatch(/^urn:unfurl:event:[A-Za-z0-9\-_.!~*'()%]*$/);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses a timestamp that is not a date rather than writing a bad one', () => {
    expect(() =>
      renderAtomFeed({ id: 'm', title: 't', selfUrl: 'https://x.test/f', updated: Number.NaN, entries: [] }),
    ).toThrow(RangeError);
  });
});
