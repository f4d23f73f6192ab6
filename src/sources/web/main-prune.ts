// Page furniture that Readability keeps inside the main content, taken out of its answer. Each rule
// follows from how article pages are built, not from one site: captions and photo credits sit in
// <figcaption>, in a box named `caption`/`credit`/`copyright`, or in a short line saying "Photo: …";
// the byline and date sit in a short box named so, or around a <time>; the article's own <header>
// (headline, standfirst, byline) leads the content; navigation is <nav>; share, related-story,
// sign-up and comment boxes carry those names; text hidden by a class is not on screen. Human
// annotators of article text leave all of them out (docs/decisions.md has the measurements). Pictures
// stay. The content is small next to the page: one walk over it.
import type { parseHTML } from 'linkedom';

type Doc = ReturnType<typeof parseHTML>['document'];
type El = ReturnType<Doc['createElement']>;

/** A class or id naming a caption or a photo credit. */
const CAPTION = /caption|credit|copyright/i;
/** A token saying whether a figure has a caption: the figure's state, on the figure itself. */
const CAPTION_STATE = /^(?:no|has|with|without)[-_]/i;
/** A token saying what an element has or lacks, anywhere in it (`fig--has-shares`, `post-no-comments`). */
const HAS_STATE = /(?:^|[-_])(?:no|has|with|without)[-_]/i;
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
/** Elements a credit line is written in. */
const CREDIT_BLOCK = new Set(['p', 'div', 'span', 'small', 'em', 'i']);
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

/**
 * A class or id token naming a box beside the story, not one saying what a figure or post has
 * (`fig--has-shares`, `no-comments`): those describe the element itself, which may be the content.
 */
const namesAside = (el: El) =>
  label(el)
    .split(/\s+/)
    .some((token) => ASIDE.test(token) && !HAS_STATE.test(token));

function isAsideBox(el: El): boolean {
  if (!namesAside(el)) return false;
  const text = textOf(el);
  return text.length < ASIDE_MAX_CHARS || linkDensity(el, text) > 0.5;
}

/** A photo credit by its wording: "Photo: …", "(Image: © …)", or a line ending in a picture agency. */
const CREDIT_LINE =
  /^\(?(?:photo|image|picture|foto)s?\s*(?:credit)?\s*:|^credits?\s*:|\b(?:getty images|shutterstock|reuters|associated press|ap photo|afp|epa)\)?$/i;
/** A credit line is short: a longer block that ends so is a paragraph quoting an agency. */
const CREDIT_LINE_MAX_CHARS = 150;

/** A short block that is only a photo credit (one holding the picture itself stays). */
function isCreditLine(el: El): boolean {
  // A line of a few inline pieces at most: a block of several children is no credit line, and its
  // text (read for every paragraph and box otherwise) need not be read.
  if (!CREDIT_BLOCK.has(el.localName) || el.children.length > 3) return false;
  const text = textOf(el);
  return (
    text.length > 0 &&
    text.length < CREDIT_LINE_MAX_CHARS &&
    CREDIT_LINE.test(text) &&
    !el.querySelector(MEDIA)
  );
}

function isFurniture(el: El): boolean {
  return (
    isHidden(el) || isCaption(el) || isNavigation(el) || isBylineBox(el) || isAsideBox(el) || isCreditLine(el)
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

/**
 * Code and headings are the content's own, whatever their classes say: a highlighter's `token comment`
 * span, a heading's anchor named after its words (`Eich_CEO_promotion_controversy`).
 */
const VERBATIM = /^(?:pre|code|h[1-6])$/;

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
  let verbatim: El | null = null;
  for (const el of root.querySelectorAll('*') as Iterable<El>) {
    // Document order: a doomed element's descendants come right after it.
    if (doomed.at(-1)?.contains(el)) continue;
    if (verbatim?.contains(el)) {
      dropClasses(el);
      continue;
    }
    if (VERBATIM.test(el.localName)) {
      verbatim = el;
    } else if (el.localName === 'time') {
      const line = dateLine(el, root);
      // A <time> alone inside a longer block is a date in a sentence ("On <time>Monday</time>, …").
      if (line !== el || el.parentElement === root) doomed.push(line);
    } else if (isFurniture(el)) {
      doomed.push(el);
    } else if (el.localName === 'header' && isLeadingHeader(el, contentText())) {
      doomed.push(el);
    }
    dropClasses(el);
  }
  for (const el of doomed) {
    // The article's header goes, its lead picture stays where it was.
    if (el.localName === 'header') keepPictures(el);
    el.remove();
  }
}

/** Moves the outermost pictures (figures, images, videos) of `el` out, just before it. */
function keepPictures(el: El): void {
  const pictures: El[] = [];
  for (const media of el.querySelectorAll('figure, picture, img, video') as Iterable<El>) {
    if (!pictures.some((outer) => outer.contains(media))) pictures.push(media);
  }
  for (const picture of pictures) el.before(picture);
}
