// HTML → Markdown: turndown with GitHub-flavoured tables and strikethrough, ATX headings, fenced
// code, and tidy whitespace. Works on a parsed element (no second parse) or on an HTML string.
// The table rules are ours: the GFM plugins for turndown read DOM properties (`table.rows`) that
// linkedom lacks, and keep tables as HTML in cases LLM pipelines cannot use.
import TurndownService from 'turndown';

type Node = TurndownService.Node & {
  parentNode: Node | null;
  closest?(selector: string): Node | null;
  querySelector(selector: string): Node | null;
  querySelectorAll(selector: string): ArrayLike<Node>;
  getAttribute(name: string): string | null;
};

/** Columns a cell spans (colspan, within reason). */
const span = (cellNode: Node) => Math.min(Math.max(Number(cellNode.getAttribute('colspan')) || 1, 1), 50);

/** One cell: its Markdown on one line, pipes escaped, then one empty cell per extra column it spans. */
function cell(content: string, node: Node): string {
  const text = content.replace(/\n+/g, ' ').replace(/\|/g, '\\|').trim();
  const first =
    node.parentNode &&
    (node.parentNode as unknown as { firstElementChild: unknown }).firstElementChild === node;
  return `${first ? '|' : ''} ${text} |${' |'.repeat(span(node) - 1)}`;
}

/** Cells a row spans, colspans counted. */
function rowWidth(row: Node): number {
  let width = 0;
  for (const c of Array.from(row.querySelectorAll(':scope > th, :scope > td'))) width += span(c);
  return width;
}

function addTables(td: TurndownService): void {
  td.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => cell(content, node as Node),
  });
  td.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = node as Node;
      const table = row.closest?.('table');
      // The first row is the header row (GFM needs one); the separator follows it.
      const isFirst = table?.querySelector('tr') === row;
      const separator = isFirst ? `\n|${' --- |'.repeat(Math.max(rowWidth(row), 1))}` : '';
      return `\n${content.trim()}${separator}`;
    },
  });
  td.addRule('tableSection', { filter: ['thead', 'tbody', 'tfoot'], replacement: (content) => content });
  td.addRule('table', {
    filter: 'table',
    replacement: (content) => {
      const rows = content.trim();
      return rows ? `\n\n${rows}\n\n` : '';
    },
  });
  td.addRule('tableCaption', { filter: 'caption', replacement: (content) => `\n\n${content.trim()}\n\n` });
  td.addRule('strikethrough', { filter: ['del', 's', 'strike'] as never, replacement: (c) => `~~${c}~~` });
}

function converter(noLinks: boolean): TurndownService {
  const td = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    linkStyle: 'inlined',
  });
  addTables(td);
  // Leftovers that carry no text of their own.
  td.remove(['script', 'style', 'noscript', 'template', 'button', 'input', 'select', 'textarea']);
  if (noLinks) {
    td.addRule('linkText', { filter: 'a', replacement: (content) => content });
  } else {
    // A link without an address (or to a script) is just its text.
    td.addRule('deadLink', {
      filter: (node) =>
        node.nodeName === 'A' &&
        !/^https?:/i.test((node as { getAttribute(n: string): string | null }).getAttribute('href') ?? ''),
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
