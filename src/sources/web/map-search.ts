// map's `search`: the URLs ranked by how well they match a query, the way a search box would, with
// no index and no model — a plain BM25 over the words of each URL (its path and query, its host at
// half weight) and, for the start page's links, the words of the link (its text, title and alt).
// Words are lower-cased runs of letters and digits (any script), with a trailing "s" dropped from
// words of four letters or more that do not end in "ss" ("pages" and "page" match, "class" stays).
// URLs that match no word of the query are kept, after the matches, in their own order (Firecrawl
// keeps them too); matches of equal score keep their order (page links, then sitemap order).
import { Parser } from 'htmlparser2';
import { resolveLink } from './url.js';

/** `search`'s longest query, in characters. */
export const MAX_SEARCH_LENGTH = 200;
/** Words of a query beyond these are ignored. */
const MAX_QUERY_TERMS = 32;
/** Characters of link text kept per URL. */
const MAX_TEXT_PER_URL = 500;
/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
const HOST_WEIGHT = 0.5;

const stem = (word: string) =>
  word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;

/** The words of a text, for matching (pure). */
export function searchTerms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0)
    .map(stem);
}

const decoded = (part: string) => {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
};

/** A URL's words with their weights: path and query 1, host 0.5 (a leading www. left out), text 1. */
function urlTerms(url: string, text: string | undefined): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (words: string[], weight: number) => {
    for (const w of words) terms.set(w, (terms.get(w) ?? 0) + weight);
  };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    add(searchTerms(url), 1);
    return terms;
  }
  add(searchTerms(u.hostname.replace(/^www\./, '')), HOST_WEIGHT);
  add(searchTerms(decoded(u.pathname)), 1);
  add(searchTerms(decoded(u.search)), 1);
  if (text) add(searchTerms(text), 1);
  return terms;
}

/**
 * `urls` ranked by relevance to `query` (pure): BM25 over each URL's words (see the header), best
 * first, ties and the URLs matching nothing kept in their order, those after the matches. A query
 * with no word leaves the order as it is.
 */
export function rankUrls(
  urls: readonly string[],
  query: string,
  textOf?: (url: string) => string | undefined,
): string[] {
  const wanted = [...new Set(searchTerms(query))].slice(0, MAX_QUERY_TERMS);
  if (wanted.length === 0 || urls.length === 0) return [...urls];
  const docs = urls.map((url) => urlTerms(url, textOf?.(url)));
  const lengths = docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
  const avgLength = lengths.reduce((a, b) => a + b, 0) / docs.length || 1;
  const idf = new Map<string, number>();
  for (const term of wanted) {
    const df = docs.filter((d) => d.has(term)).length;
    idf.set(term, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5)));
  }
  const scored = docs.map((doc, i) => {
    let score = 0;
    for (const term of wanted) {
      const tf = doc.get(term) ?? 0;
      if (tf === 0) continue;
      const norm = tf + K1 * (1 - B + (B * lengths[i]!) / avgLength);
      score += idf.get(term)! * ((tf * (K1 + 1)) / norm);
    }
    return { url: urls[i]!, score, i };
  });
  const matches = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.i - b.i);
  return [...matches, ...scored.filter((s) => s.score === 0)].map((s) => s.url);
}

/**
 * The words a page puts on its links (pure): each <a>'s text and title, each <area>'s alt and title,
 * by the link's URL (resolved and normalised as page links are), joined when several links share it.
 */
export function linkTexts(html: string, pageUrl: string): Map<string, string> {
  const raw: { href: string; text: string }[] = [];
  let baseHref: string | null = null;
  let open: { href: string; text: string } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'base' && baseHref === null && attribs.href !== undefined) baseHref = attribs.href;
        if (name === 'a' && attribs.href !== undefined) {
          open = { href: attribs.href, text: attribs.title ? `${attribs.title} ` : '' };
          raw.push(open);
        } else if (name === 'a') {
          open = null;
        } else if (name === 'area' && attribs.href !== undefined) {
          raw.push({ href: attribs.href, text: `${attribs.alt ?? ''} ${attribs.title ?? ''}` });
        } else if (open && name === 'img' && attribs.alt) {
          open.text += ` ${attribs.alt} `;
        }
      },
      ontext(chunk) {
        if (open && open.text.length < MAX_TEXT_PER_URL) open.text += chunk;
      },
      onclosetag(name) {
        if (name === 'a') open = null;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  let base: URL;
  try {
    base = new URL(baseHref ?? pageUrl, pageUrl);
  } catch {
    base = new URL(pageUrl);
  }
  const texts = new Map<string, string>();
  for (const { href, text } of raw) {
    const url = resolveLink(href, base);
    const words = text.replace(/\s+/g, ' ').trim();
    if (!url || !words) continue;
    const before = texts.get(url);
    const joined = before ? `${before} ${words}` : words;
    texts.set(url, joined.slice(0, MAX_TEXT_PER_URL));
  }
  return texts;
}
