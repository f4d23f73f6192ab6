// Extracted Markdown as the plain text it reads as, to score against human-annotated article text
// (the shingle metric is in shingles.ts).

/**
 * The words a reader sees in Markdown: links become their text, images go (an alt text is not the
 * page's text, and the DOM's textContent, which Readability.js is scored on, has none), the syntax our converter
 * writes goes (its list items are `-` and `1.`; a `1)` at a line's start is the page's own text). A
 * link's address may hold one level of parentheses (turndown writes them as they are) and a title.
 */
export function stripMarkdown(md: string): string {
  return md
    .replace(/!\[[^\]]*\]\((?:[^()\s]|\([^()\s]*\))*(?: "[^"]*")?\)/g, ' ')
    .replace(/\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?: "[^"]*")?\)/g, '$1')
    .replace(/^```.*$/gm, '')
    .replace(/^\s*(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, '')
    .replace(/(?<!\\)[|*_`~]/g, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1');
}
