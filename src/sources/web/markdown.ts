// HTML → Markdown: turndown with GitHub-flavoured tables and strikethrough, ATX headings, fenced
// code, and tidy whitespace. Works on a parsed element (no second parse) or on an HTML string.
import { gfm } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';

function converter(noLinks: boolean): TurndownService {
  const td = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    linkStyle: 'inlined',
  });
  td.use(gfm);
  // Leftovers that carry no text of their own.
  td.remove(['script', 'style', 'noscript', 'template', 'button', 'input', 'select', 'textarea']);
  if (noLinks) {
    td.addRule('linkText', { filter: 'a', replacement: (content) => content });
  } else {
    // A link without an address (or to a script) is just its text.
    td.addRule('deadLink', {
      filter: (node) =>
        node.nodeName === 'A' && !/^https?:/i.test((node as { getAttribute(n: string): string | null }).getAttribute('href') ?? ''),
      replacement: (content) => content,
    });
  }
  return td;
}

const withLinks = converter(false);
const withoutLinks = converter(true);

/** Markdown of an element (or HTML string): trimmed, at most one blank line in a row. */
export function htmlToMarkdown(input: unknown, options: { noLinks: boolean }): string {
  const td = options.noLinks ? withoutLinks : withLinks;
  const md = td.turndown(input as string | TurndownService.Node);
  return md
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Unicode code points (what a person counts as characters), not UTF-16 units. */
export function countCharacters(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}
