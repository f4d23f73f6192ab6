// Page furniture that Readability keeps inside the main content, taken out of its answer. Each rule
// follows from how article pages are built, not from one site: captions and photo credits sit in
// <figcaption> or a box named `caption`/`credit`; the byline and date sit in a short box named so, or
// around a <time>; the article's own <header> (headline, standfirst, byline) leads the content; share,
// related-story, sign-up and comment boxes carry those names; lists of other pages are nearly all
// links; text hidden by a class is not on screen. Human annotators of article text leave all of them
// out (docs/decisions.md has the measurements). The content is small next to the page, so one walk
// over it costs little.
import type { parseHTML } from 'linkedom';

type Doc = ReturnType<typeof parseHTML>['document'];
type El = ReturnType<Doc['createElement']>;

/** A class or id naming a caption or a photo credit. */
const CAPTION = /caption|credit|copyright/i;
/** A token saying whether a figure has a caption: the figure's state, on the figure itself. */
const CAPTION_STATE = /^(?:no|has|with|without)[-_]/i;
/** Elements that show a picture: a caption box holding one is the figure, not its caption. */
const MEDIA = 'img, picture, video';
/** A class or id naming who wrote the piece and when. */
const BYLINE =
  /byline|author|dateline|timestamp|publish|posted|(?:^|[-_\s])date|(?:article|post|entry)-?meta/i;
/** A byline or date line is short; a longer box with such a name may be the article in a theme's class. */
const BYLINE_MAX_CHARS = 300;
/** A class or id naming a box beside the story: sharing, related stories, sign-ups, comments. */
const ASIDE =
  /share|sharing|social|related|recommend|more-?stories|read-?more|trending|popular|promo|newsletter|subscribe|comment|outbrain|taboola/i;
/** Such a box is short or mostly links; a long one of prose is more likely the article in a widget's class. */
const ASIDE_MAX_CHARS = 500;
/** A list whose text is this much link text is a list of other pages. */
const LINK_LIST_DENSITY = 0.8;
/** Class names that hide an element from the screen (Bootstrap, Tailwind, WordPress and the like). */
const HIDDEN_CLASS =
  /(?:^|\s)(?:hidden|d-none|hide|is-hidden|off-?screen|sr-only|visually-hidden|screen-reader-text)(?:\s|$)/i;
/** How much more than its date a date line may say ("Published 4:00 am CST, …", "Updated: …"). */
const DATE_LINE_EXTRA_CHARS = 60;

const label = (el: El) => `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`;
const textOf = (el: El) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();

function linkDensity(el: El, text: string): number {
  if (!text) return 0;
  let linked = 0;
  for (const a of el.querySelectorAll('a')) linked += textOf(a).length;
  return linked / text.length;
}

const isHidden = (el: El) => HIDDEN_CLASS.test(el.getAttribute('class') ?? '');

/** A class or id token that names a caption box, not one that says whether a figure has one (`no_caption`). */
const namesCaption = (el: El) =>
  label(el)
    .split(/\s+/)
    .some((token) => CAPTION.test(token) && !CAPTION_STATE.test(token));

function isCaption(el: El): boolean {
  if (el.localName === 'figcaption') return true;
  return namesCaption(el) && !el.querySelector(MEDIA);
}

const isNavigation = (el: El) => el.localName === 'nav' || el.getAttribute('role') === 'navigation';

const isBylineBox = (el: El) => BYLINE.test(label(el)) && textOf(el).length < BYLINE_MAX_CHARS;

function isAsideBox(el: El): boolean {
  if (!ASIDE.test(label(el))) return false;
  const text = textOf(el);
  return text.length < ASIDE_MAX_CHARS || linkDensity(el, text) > 0.5;
}

const OFF = process.env.PRUNE_OFF ?? '';
function isFurniture(el: El): boolean {
  return (
    (!OFF.includes('hid') && isHidden(el)) ||
    (!OFF.includes('cap') && isCaption(el)) ||
    (!OFF.includes('nav') && isNavigation(el)) ||
    (!OFF.includes('byl') && isBylineBox(el)) ||
    (!OFF.includes('asi') && isAsideBox(el))
  );
}

/** The outermost block around a <time> that says little more than the date: the date line. */
function dateLine(time: El, root: El): El {
  const limit = textOf(time).length + DATE_LINE_EXTRA_CHARS;
  let line = time;
  for (let up = time.parentElement as El | null; up && up !== root; up = up.parentElement as El | null) {
    // A block holding a picture is a figure or a header with the lead image: the date line is inside.
    if (textOf(up).length > limit || up.querySelector(MEDIA)) break;
    line = up;
  }
  return line;
}

/** The article's own header, first in the content: headline, standfirst, byline (a picture alone stays). */
function isLeadingHeader(header: El, rootText: string): boolean {
  const text = textOf(header);
  return text.length > 0 && rootText.startsWith(text);
}

/** Readability's own cleaning, left to us so the rules above could read the classes: all but `page` go. */
function dropClasses(el: El): void {
  const classes = el.getAttribute('class');
  if (classes === null) return;
  if (/(?:^|\s)page(?:\s|$)/.test(classes)) el.setAttribute('class', 'page');
  else el.removeAttribute('class');
}

/**
 * Takes page furniture out of the main content `root` (never `root` itself). Readability must keep
 * the page's classes (keepClasses) for the rules to read them; they are dropped here as it would have.
 */
export function pruneFurniture(root: El): void {
  const doomed: El[] = [];
  // The content's text, read once and only for a page with a <header> in its content.
  let rootText: string | undefined;
  const contentText = (): string => {
    const text = rootText ?? textOf(root);
    rootText = text;
    return text;
  };
  for (const el of root.querySelectorAll('*') as Iterable<El>) {
    // Document order: a doomed element's descendants come right after it.
    if (doomed.at(-1)?.contains(el)) continue;
    if (el.localName === 'time' && !OFF.includes('tim')) {
      doomed.push(dateLine(el, root));
      if (process.env.PRUNE_LOG)
        console.error(
          'TIME',
          doomed.at(-1)!.localName,
          label(doomed.at(-1)!).slice(0, 50),
          '|',
          textOf(doomed.at(-1)!).slice(0, 200),
        );
    } else if (isFurniture(el)) {
      doomed.push(el);
      if (process.env.PRUNE_LOG)
        console.error(
          'PRUNE',
          el.localName,
          label(el).slice(0, 50),
          '|',
          textOf(el).length,
          textOf(el).slice(0, 100),
        );
    } else if (!OFF.includes('hdr') && el.localName === 'header' && isLeadingHeader(el, contentText())) {
      doomed.push(el);
    }
    dropClasses(el);
  }
  for (const el of doomed) el.remove();
}
