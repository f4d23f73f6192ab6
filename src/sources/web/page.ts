// An HTML page → what scrape answers: its main content as Markdown, its metadata and its links.
// One linkedom parse serves everything; Readability finds the main content, and when it keeps too
// little of a page that does not read as an article (a list, a home page) the cleaned whole page is
// used. Short articles inside heavy page furniture keep Readability's answer: on the Zyte benchmark
// a plain share rule (Jina's 30 %) drops token F1 from 0.96 to 0.87, this rule keeps 0.96; and so
// does a page whose og:type says article (an article that is one long list is not readerable).
// Readability's answer then loses the page furniture it keeps (captions, date lines, link lists…:
// main-prune.ts). Readability takes the heading that repeats the title out of the article (it answers
// the title apart); we put it back as a leading `# ` line, as readers of the Markdown expect.
import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { pruneFurniture } from './main-prune.js';
import { htmlToMarkdown } from './markdown.js';
import { scanPage } from './page-scan.js';
import { resolveLink } from './url.js';

export interface PageContent {
  /** Main content as Markdown. */
  content: string;
  /** The page title. */
  name: string | null;
  description: string | null;
  /** og:url, absolute. */
  ogUrl: string | null;
  /** og:image, absolute. */
  ogImage: string | null;
  /** Every link on the page: absolute, normalised, deduplicated, in page order. */
  urls: string[];
  /** Scripts and next to no visible text: a shell that JavaScript fills in. */
  looksEmpty: boolean;
  /** The content as cleaned HTML (links and images absolute), when asked for. */
  html?: string;
}

export interface PageOptions {
  /** Links become their text in `content` (`urls` still lists them). */
  noLinks?: boolean;
  /** false: the whole page (scripts, styles and hidden parts aside) instead of its main content. */
  onlyMainContent?: boolean;
  /** CSS selectors, checked by the caller: only what they match is read. */
  includeTags?: readonly string[];
  /** CSS selectors, checked by the caller: what they match is dropped before anything is read. */
  excludeTags?: readonly string[];
  /** Also answer the content as cleaned HTML (`html`). */
  html?: boolean;
}

/** Readability's share of the page's text below which the whole page is used instead. */
const MIN_MAIN_SHARE = 0.3;
/** Below this many characters of visible text a scripted page counts as a JavaScript shell. */
const EMPTY_TEXT_CHARS = 200;

type Doc = ReturnType<typeof parseHTML>['document'];
type El = ReturnType<Doc['createElement']>;

/** Page furniture, dropped when the whole page stands in for the main content. */
const FURNITURE =
  'nav, header, footer, aside, form, dialog, [role="navigation"], [role="banner"], [role="contentinfo"], ' +
  '[role="dialog"], [aria-hidden="true"], [hidden], .cookie-banner, #cookie-banner, .skip-link';

const collapse = (s: string | null | undefined) => (s ? s.replace(/\s+/g, ' ').trim() || null : null);

/** Rewrites links and images under `root` to absolute URLs (lazy-loaded images get their real source). */
function absolutize(root: El, base: URL): void {
  for (const a of root.querySelectorAll('a[href]')) {
    const href = a.getAttribute('href')!.trim();
    if (href.startsWith('#')) {
      a.removeAttribute('href');
      continue;
    }
    try {
      a.setAttribute('href', new URL(href, base).toString());
    } catch {
      a.removeAttribute('href');
    }
  }
  for (const img of root.querySelectorAll('img')) {
    const src = img.getAttribute('data-src') || img.getAttribute('src') || '';
    if (!src || src.startsWith('data:')) {
      img.remove();
      continue;
    }
    try {
      img.setAttribute('src', new URL(src.trim(), base).toString());
    } catch {
      img.remove();
    }
  }
}

/** Just the links of a page (map): absolute, normalised, deduplicated, in page order. */
export function extractLinks(html: string, pageUrl: string): string[] {
  return scanPage(parseHTML(html).document, pageUrl).urls;
}

const textLength = (el: El | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim().length;

/**
 * Narrows a parsed page to what the caller asked for: `excludeTags` matches dropped, then, with
 * `includeTags`, the body made of the matches alone (outermost first, each once, in page order).
 */
function selectParts(document: Doc, options: PageOptions): void {
  for (const selector of options.excludeTags ?? []) {
    for (const el of document.querySelectorAll(selector)) el.remove();
  }
  if (!options.includeTags?.length) return;
  const body = (document.body ?? document.documentElement) as El | null;
  if (!body) return;
  const kept: El[] = [];
  for (const el of body.querySelectorAll(options.includeTags.join(', ')) as Iterable<El>) {
    if (!kept.some((outer) => outer.contains(el))) kept.push(el);
  }
  while (body.firstChild) body.removeChild(body.firstChild);
  for (const el of kept) body.appendChild(el);
}

/** The page without its non-content elements, the whole of it standing in for the main content. */
function wholePage(
  html: string,
  pageUrl: string,
  options: PageOptions,
): { body: El | null; readerable: boolean } {
  const { document } = parseHTML(html);
  scanPage(document, pageUrl);
  selectParts(document, options);
  const body = (document.body ?? document.documentElement) as El | null;
  return { body, readerable: isProbablyReaderable(document as never) };
}

/** The share of `b`'s words (by length) that `a` has too: Readability's test of a heading against the title. */
function similarity(a: string, b: string): number {
  // Letters and digits of any script (Readability's \W+ sees no words in a Chinese title).
  const words = (text: string) =>
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
  const aWords = new Set(words(a));
  const bWords = words(b);
  if (!aWords.size || !bWords.length) return 0;
  const missing = bWords.filter((w) => !aWords.has(w));
  return 1 - missing.join(' ').length / bWords.join(' ').length;
}

/** A title and its parts between separators ("How we build widgets | Acme Blog" has three). */
const titleParts = (title: string) => [title, ...title.split(/\s+[|\-–—·:»/\\]+\s+/)].filter(Boolean);

/**
 * The page's title heading: of its visible <h1>s that say the title or a part of it (each nearly all
 * words of the other), the one that says most of the title — the article's heading rather than the
 * site's logo. None when no <h1> does: a heading is never made up from <title> alone.
 */
function titleHeading(h1s: readonly string[], title: string | null): string | null {
  if (!title) return null;
  const parts = titleParts(title);
  let best: string | null = null;
  let bestShare = 0;
  for (const h of h1s) {
    if (!parts.some((p) => similarity(p, h) > 0.75 && similarity(h, p) > 0.75)) continue;
    const share = similarity(h, title);
    if (share > bestShare) [best, bestShare] = [h, share];
  }
  return best;
}

/**
 * Makes the title heading the content's `# ` heading: Readability takes it out (and turns every
 * other <h1> into an <h2>), so it goes back first, or back to <h1> where the content still has it.
 */
function keepTitleHeading(root: El, heading: string): void {
  const doc = root.ownerDocument;
  const same = heading.toLowerCase();
  for (const h of root.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    if (collapse(h.textContent)?.toLowerCase() !== same) continue;
    if (h.localName !== 'h1') {
      const h1 = doc.createElement('h1');
      while (h.firstChild) h1.appendChild(h.firstChild);
      h.replaceWith(h1);
    }
    return;
  }
  const h1 = doc.createElement('h1');
  h1.textContent = heading;
  root.insertBefore(h1, root.firstChild);
}

export function parsePage(html: string, pageUrl: string, options: PageOptions = {}): PageContent {
  const { document } = parseHTML(html);
  const page = scanPage(document, pageUrl);
  selectParts(document, options);
  const body = (document.body ?? document.documentElement) as El | null;
  const pageText = textLength(body);
  const ogImage = page.meta('og:image', 'og:image:url', 'twitter:image');
  const answer = (root: El | null, title: string | null): PageContent => {
    if (root) absolutize(root, page.base);
    return {
      content: root ? htmlToMarkdown(root, { noLinks: options.noLinks ?? false }) : '',
      name: collapse(page.title) ?? collapse(page.meta('og:title')) ?? title,
      description: collapse(page.meta('description', 'og:description', 'twitter:description')),
      ogUrl: resolveLink(page.meta('og:url'), page.base),
      ogImage: ogImage ? resolveLink(ogImage, page.base) : null,
      urls: page.urls,
      looksEmpty: page.scripted && pageText < EMPTY_TEXT_CHARS,
      ...(options.html ? { html: root ? root.innerHTML.trim() : '' } : {}),
    };
  };
  if (options.onlyMainContent === false) {
    for (const el of body?.querySelectorAll('[hidden], [aria-hidden="true"]') ?? []) el.remove();
    return answer(body, null);
  }

  // Readability rewrites the tree it reads, and reads this one: the fallback, rare, parses the page again,
  // and so does a Readability retry pass (freshDocument, our patch) instead of a copy of every page.
  const article = new Readability(document as never, {
    serializer: (el: unknown) => el,
    // pruneFurniture reads the page's classes, then drops them as Readability would have.
    keepClasses: true,
    freshDocument: () => {
      const fresh = parseHTML(html).document;
      scanPage(fresh, pageUrl);
      selectParts(fresh, options);
      return fresh as never;
    },
  }).parse() as { content: El | null; title?: string | null } | null;
  const main = article?.content ?? null;
  let root: El | null = main;
  // A page that declares itself an article (og:type) keeps Readability's answer however short.
  const declaredArticle = /article/i.test(page.meta('og:type') ?? '');
  if (!main || (!declaredArticle && textLength(main) < pageText * MIN_MAIN_SHARE)) {
    const whole = wholePage(html, pageUrl, options);
    if (!main || !whole.readerable) {
      for (const el of whole.body?.querySelectorAll(FURNITURE) ?? []) el.remove();
      root = whole.body;
    }
  }
  // Furniture goes from Readability's answer only: a whole page standing in is a list of links by design.
  if (root && root === main) pruneFurniture(root);
  const heading = titleHeading(page.h1s, collapse(article?.title) ?? collapse(page.title));
  if (root && heading) keepTitleHeading(root, heading);
  return answer(root, collapse(article?.title ?? null));
}
