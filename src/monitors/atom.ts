// A monitor's events as an Atom 1.0 feed (RFC 4287), for feed readers subscribed to
// GET /v1/monitors/{id}/feed.atom?token=…. Every text is hostile (page titles, diffs, upstream video
// titles): it is escaped, and characters XML 1.0 forbids are dropped, so the document always parses.
// All text constructs are type="text": never HTML, so no caller content is ever rendered as markup.

export interface AtomEntry {
  /** The event's id; rendered as `urn:unfurl:event:<id>`. */
  id: string;
  title: string;
  /** Milliseconds since the epoch. */
  updated: number;
  published?: number;
  /** The page or video the event is about (http/https only; anything else is left out). */
  link?: string;
  summary: string;
  /** Longer text, e.g. a diff; kept as text. */
  content?: string;
}

export interface AtomFeed {
  /** The monitor's id; rendered as `urn:unfurl:monitor:<id>`. */
  id: string;
  title: string;
  /** The URL the reader subscribed to, token included: readers refetch exactly this. */
  selfUrl: string;
  alternateUrl?: string;
  updated: number;
  /** In the order given (newest first, by convention). */
  entries: readonly AtomEntry[];
}

/** Anything outside XML 1.0's Char production: C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
// CR as a reference: a parser turns a literal CR (or CRLF) into LF, and a diff should keep its line ends.
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\r': '&#13;',
};

/** Text safe in element content and in double- or single-quoted attributes. */
export function xmlEscape(text: string): string {
  return text.replace(NOT_XML_CHAR, '').replace(/[&<>"'\r]/g, (c) => ENTITIES[c]!);
}

/** RFC 3339 in UTC (`2026-10-25T08:00:00.000Z`); throws on a timestamp that is not a date. */
const rfc3339 = (ms: number) => new Date(ms).toISOString();

/** A URN for an id of ours; percent-encoded so any id still makes a valid URI. */
const urn = (kind: string, id: string) =>
  `urn:unfurl:${kind}:${encodeURIComponent(id.replace(NOT_XML_CHAR, ''))}`;

/** Only web links: a `javascript:` or `data:` URL from upstream must not become a clickable link. */
function webUrl(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const text = (tag: string, value: string, indent: string) =>
  `${indent}<${tag} type="text">${xmlEscape(value)}</${tag}>`;
const link = (rel: string, href: string, indent: string) =>
  `${indent}<link rel="${rel}" href="${xmlEscape(href)}"${rel === 'self' ? ' type="application/atom+xml"' : ''}/>`;

function renderEntry(e: AtomEntry): string {
  const href = webUrl(e.link);
  const lines = [
    '  <entry>',
    `    <id>${xmlEscape(urn('event', e.id))}</id>`,
    text('title', e.title, '    '),
    `    <updated>${rfc3339(e.updated)}</updated>`,
  ];
  if (e.published !== undefined) lines.push(`    <published>${rfc3339(e.published)}</published>`);
  if (href) lines.push(link('alternate', href, '    '));
  lines.push(text('summary', e.summary, '    '));
  // RFC 4287 §4.1.2: an entry without content must have an alternate link; else the summary stands in.
  const content = e.content ?? (href ? undefined : e.summary);
  if (content !== undefined) lines.push(text('content', content, '    '));
  lines.push('  </entry>');
  return lines.join('\n');
}

/** The feed as an Atom 1.0 document. */
export function renderAtomFeed(feed: AtomFeed): string {
  const alternate = webUrl(feed.alternateUrl);
  const lines = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xmlEscape(urn('monitor', feed.id))}</id>`,
    text('title', feed.title, '  '),
    `  <updated>${rfc3339(feed.updated)}</updated>`,
    link('self', feed.selfUrl, '  '),
  ];
  if (alternate) lines.push(link('alternate', alternate, '  '));
  // RFC 4287 §4.1.1: a feed needs an author unless every entry has one; ours never do.
  lines.push('  <author><name>Unfurl</name></author>', '  <generator>Unfurl</generator>');
  for (const e of feed.entries) lines.push(renderEntry(e));
  lines.push('</feed>', '');
  return lines.join('\n');
}
