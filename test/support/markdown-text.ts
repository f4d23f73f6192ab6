// Scoring extracted Markdown against human-annotated plain text: Markdown syntax stripped, then
// the F1 of the multisets of lower-cased word tokens.

/** The words a reader sees in Markdown: links and images become their text, syntax goes. */
export function stripMarkdown(md: string): string {
  return md
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^```.*$/gm, '')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '')
    .replace(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, '')
    .replace(/[|*_`~]/g, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1');
}

export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** F1 of the two token multisets (1 when both are empty). */
export function tokenF1(got: string[], expected: string[]): number {
  if (got.length === 0 && expected.length === 0) return 1;
  if (got.length === 0 || expected.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of expected) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of got) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      overlap++;
      counts.set(t, c - 1);
    }
  }
  const precision = overlap / got.length;
  const recall = overlap / expected.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}
