// One walk over a parsed page reads what scrape answers besides the content — title, <base>, the
// <meta> values, every link, whether it has scripts — and takes out what is never content: scripts,
// styles, embeds, and the short boxes a page names as newsletter sign-ups or "click to tweet" buttons,
// which Readability keeps inside an article and no annotator counts as the article (on the
// article-extraction benchmark they lift F1 from 0.9599 to 0.9608). One walk instead of a selector
// query per field: each query is a walk of its own on linkedom.
import type { parseHTML } from 'linkedom';
import { resolveLink } from './url.js';

type Doc = ReturnType<typeof parseHTML>['document'];
type El = ReturnType<Doc['createElement']>;

/** Never content, whatever the page. */
const NON_CONTENT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'link',
  'meta',
]);

/** A class or id naming a promotion box, not the article. */
const PROMO_BOX = /newsletter|signup|sign-up|subscribe|ctt-btn/i;
/** A promotion box is short; a long element with such a name is more likely the article in a widget's class. */
const PROMO_MAX_CHARS = 400;

export interface PageScan {
  /** The first <title>'s text, as written. */
  title: string | null;
  /**
   * The text of each <h1> that may head the content, whitespace collapsed, in page order: hidden ones,
   * empty ones and the site's own (its logo, its navigation) left out.
   */
  h1s: string[];
  /** The base for relative links: <base href> (itself relative to the page) or the page. */
  base: URL;
  /** Every link (a and area href): absolute, normalised, deduplicated, in page order. */
  urls: string[];
  /** The page had at least one <script>. */
  scripted: boolean;
  /** The first non-empty value among `keys`, each read from the first <meta property|name=key>. */
  meta(...keys: string[]): string | null;
}

/** Inside these, an <h1> is not the page's heading: no reader sees it, or it is the site's navigation. */
const NOT_CONTENT_HEADING = '[hidden], [aria-hidden="true"], nav, [role="navigation"], [role="banner"]';
/** A class or id naming the site's logo or name (`topbar__logo__title`, `site-title`, `masthead`). */
const SITE_NAME = /logo|masthead|site-?(?:title|name)/i;

/** An <h1> that is the site's (its logo, its name, its navigation) or that no reader sees. */
function siteFurniture(h1: El): boolean {
  if (h1.closest(NOT_CONTENT_HEADING)) return true;
  // The heading itself or its parent names the logo (wrappers further out name whole pages `brand-a`).
  let el: El | null = h1;
  for (let level = 0; el && level < 2; level++, el = el.parentElement as El | null) {
    if (SITE_NAME.test(`${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`)) return true;
  }
  return false;
}

const collapsed = (text: string | null) => text?.replace(/\s+/g, ' ').trim() || null;

/** The base for a page's relative links: its <base href> (itself relative to the page), else the page. */
export function baseOf(href: string | null, pageUrl: string): URL {
  try {
    return new URL(href ?? pageUrl, pageUrl);
  } catch {
    return new URL(pageUrl);
  }
}

/**
 * The document's elements in document order (a fragment parses into several top-level elements);
 * a <template>'s inert content is not the page's.
 */
function* elements(doc: Doc): Generator<El> {
  let el = doc.firstElementChild as El | null;
  while (el) {
    yield el;
    // Depth first: the first child, else the next sibling of the nearest ancestor that has one.
    let next = (el.localName === 'template' ? null : el.firstElementChild) as El | null;
    while (!next && el) {
      next = el.nextElementSibling as El | null;
      if (!next) el = el.parentElement as El | null;
    }
    el = next;
  }
}

/** Reads the page and removes its non-content elements (scripts, styles, embeds, metas…) from `doc`. */
export function scanPage(doc: Doc, pageUrl: string): PageScan {
  let title: El | null = null;
  let baseHref: string | null = null;
  let scripted = false;
  const metas = new Map<string, string>();
  const hrefs: string[] = [];
  const dropped: El[] = [];
  const promos: El[] = [];
  const h1s: El[] = [];
  for (const el of elements(doc)) {
    const name = el.localName;
    if (name === 'h1') {
      h1s.push(el);
    } else if (name === 'a' || name === 'area') {
      const href = el.getAttribute('href');
      if (href !== null) hrefs.push(href);
    } else if (name === 'meta') {
      const content = el.getAttribute('content')?.trim() ?? '';
      for (const key of [el.getAttribute('property'), el.getAttribute('name')]) {
        if (key !== null && !metas.has(key)) metas.set(key, content);
      }
    } else if (name === 'title') {
      title ??= el;
    } else if (name === 'base') {
      if (baseHref === null) baseHref = el.getAttribute('href');
    } else if (name === 'script') {
      scripted = true;
    }
    if (NON_CONTENT.has(name)) dropped.push(el);
    else if (PROMO_BOX.test(`${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`))
      promos.push(el);
  }
  const titleText = title?.textContent ?? null;
  for (const el of dropped) el.remove();
  const h1Texts = h1s.filter((el) => !siteFurniture(el)).flatMap((el) => collapsed(el.textContent) ?? []);
  for (const el of promos) {
    if ((el.textContent ?? '').replace(/\s+/g, ' ').trim().length < PROMO_MAX_CHARS) el.remove();
  }
  const base = baseOf(baseHref, pageUrl);
  const seen = new Set<string>();
  for (const href of hrefs) {
    const url = resolveLink(href, base);
    if (url) seen.add(url);
  }
  return {
    title: titleText,
    h1s: h1Texts,
    base,
    urls: [...seen],
    scripted,
    meta: (...keys) => {
      for (const key of keys) {
        const value = metas.get(key);
        if (value) return value;
      }
      return null;
    },
  };
}
