// The parts of a page the `links` and `images` formats list, read from the whole page (not only its
// main content): each link with its text and whether it stays on the site, each image with its alt
// text; and the page's declared language. Pure: HTML and its URL in, lists out.
import { parseHTML } from 'linkedom';
import { baseOf } from './page-scan.js';
import { resolveLink } from './url.js';

export interface PageLink {
  url: string;
  /** The link's visible text (or its title/aria-label, or an image's alt), whitespace collapsed. */
  text: string;
  /** Same host as the page (www. aside). */
  internal: boolean;
}

export interface PageImage {
  url: string;
  alt: string | null;
}

export interface PageParts {
  links: PageLink[];
  images: PageImage[];
}

/** The most links and images listed: a hostile page may hold millions. */
export const PAGE_PARTS_MAX = 5_000;
const TEXT_MAX = 300;

type El = ReturnType<ReturnType<typeof parseHTML>['document']['createElement']>;

const collapse = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
const bareHost = (host: string) => host.toLowerCase().replace(/^www\./, '');

function linkText(a: El): string {
  const text =
    collapse(a.textContent) ||
    collapse(a.getAttribute('aria-label')) ||
    collapse(a.getAttribute('title')) ||
    collapse(a.querySelector('img[alt]')?.getAttribute('alt'));
  return text.slice(0, TEXT_MAX);
}

/** The largest candidate of a srcset ("a.jpg 480w, b.jpg 1080w" → b.jpg), else null. */
function largestOfSrcset(srcset: string | null): string | null {
  let best: string | null = null;
  let bestSize = -1;
  for (const candidate of (srcset ?? '').split(/,\s+/)) {
    const [url, size] = candidate.trim().split(/\s+/);
    if (!url) continue;
    const n = Number.parseFloat(size ?? '1');
    if (Number.isFinite(n) && n > bestSize) [best, bestSize] = [url, n];
  }
  return best;
}

export function pageParts(html: string, pageUrl: string): PageParts {
  const { document } = parseHTML(html);
  const base = baseOf(document.querySelector('base[href]')?.getAttribute('href') ?? null, pageUrl);
  const pageHost = bareHost(new URL(pageUrl).host);

  const links: PageLink[] = [];
  const seenLinks = new Set<string>();
  for (const a of document.querySelectorAll('a[href], area[href]') as Iterable<El>) {
    if (links.length >= PAGE_PARTS_MAX) break;
    const url = resolveLink(a.getAttribute('href'), base);
    if (!url || seenLinks.has(url)) continue;
    seenLinks.add(url);
    links.push({ url, text: linkText(a), internal: bareHost(new URL(url).host) === pageHost });
  }

  const images: PageImage[] = [];
  const seenImages = new Set<string>();
  for (const img of document.querySelectorAll('img') as Iterable<El>) {
    if (images.length >= PAGE_PARTS_MAX) break;
    const src =
      largestOfSrcset(img.getAttribute('srcset')) ?? img.getAttribute('data-src') ?? img.getAttribute('src');
    const url = resolveLink(src, base);
    if (!url || seenImages.has(url)) continue;
    seenImages.add(url);
    images.push({ url, alt: collapse(img.getAttribute('alt')) || null });
  }

  return { links, images };
}

/**
 * The page's declared language: the `lang` of its <html> tag, else its content-language <meta>;
 * read from the first bytes of the markup, without a parse (every scrape answers it).
 */
export function declaredLanguage(html: string): string | null {
  const head = html.slice(0, 64 * 1024);
  const tag = /<html\b[^>]*?\slang\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(head);
  const meta =
    tag ??
    /<meta\b[^>]*http-equiv\s*=\s*["']?content-language["']?[^>]*?\scontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(
      head,
    );
  const value = collapse(meta ? (meta[1] ?? meta[2] ?? meta[3]) : null);
  return value.slice(0, 35) || null;
}
