// Golden Markdown of parsePage on Mozilla's Readability test pages (tables, code blocks, nested
// lists, images, links), so a speed change cannot silently change what scrape answers. Each page's
// Markdown is pinned by its SHA-256 beside a profile of its structure (what changed shows in the
// failure) and its shingle F1 against Readability's own expected extraction of that page.
// `UPDATE_GOLDEN=1` rewrites the file after a deliberate change, and refuses a page whose F1 went down
// unless `GOLDEN_ACCEPT=page,…` names it (say why in the commit: Readability's output is no ground truth).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../../src/sources/web/page.js';
import { stripMarkdown } from '../../support/markdown-text.js';
import { pageF1, shingleCounts } from '../../support/shingles.js';

const corpus = path.resolve(import.meta.dirname, '../../../../shared/fixtures/web/readability');
const goldenFile = path.join(import.meta.dirname, 'readability-golden.json');
/** The address every page of Mozilla's suite claims. */
const PAGE_URL = 'http://fakehost/test/page.html';

interface Golden {
  sha256: string;
  chars: number;
  headings: number;
  tableRows: number;
  codeBlocks: number;
  listItems: number;
  nestedListItems: number;
  images: number;
  links: number;
  /** Shingle F1 against the text of Readability's expected.html for the page. */
  f1: number;
}

const count = (md: string, re: RegExp) => md.match(re)?.length ?? 0;

function golden(md: string, expectedText: string): Golden {
  return {
    sha256: createHash('sha256').update(md).digest('hex'),
    chars: md.length,
    headings: count(md, /^#{1,6} /gm),
    tableRows: count(md, /^\|.*\|$/gm),
    codeBlocks: Math.floor(count(md, /^```/gm) / 2),
    listItems: count(md, /^\s*(?:[-*+]|\d+\.) /gm),
    nestedListItems: count(md, /^\s+(?:[-*+]|\d+\.) /gm),
    images: count(md, /!\[[^\]]*\]\(/g),
    links: count(md, /(?<!!)\[[^\]]*\]\(https?:/g),
    f1: Number(pageF1(shingleCounts(expectedText, stripMarkdown(md))).toFixed(4)),
  };
}

function pages(): string[] {
  return fs
    .readdirSync(corpus)
    .filter((d) => fs.existsSync(path.join(corpus, d, 'source.html')))
    .sort();
}

describe('golden Markdown of the Readability test pages', () => {
  it('answers the pinned Markdown for every page', async () => {
    const names = pages();
    expect(names.length).toBeGreaterThan(80);
    const pinned = JSON.parse(fs.readFileSync(goldenFile, 'utf8')) as Record<string, Golden>;
    const now: Record<string, Golden> = {};
    for (const name of names) {
      // A turn of the event loop per page keeps vitest's worker answering its runner.
      await new Promise((resolve) => setImmediate(resolve));
      const html = fs.readFileSync(path.join(corpus, name, 'source.html'), 'utf8');
      const md = parsePage(html, PAGE_URL).content;
      const expected = parseHTML(fs.readFileSync(path.join(corpus, name, 'expected.html'), 'utf8'));
      now[name] = golden(md, expected.document.documentElement?.textContent ?? '');
    }
    const meanF1 = names.reduce((s, n) => s + now[n]!.f1, 0) / names.length;
    console.log(
      `Readability test pages: ${names.length}, mean shingle F1 against Readability ${meanF1.toFixed(4)}`,
    );
    const changed = names.filter((n) => now[n]!.sha256 !== pinned[n]?.sha256);
    const report = changed.map((n) => {
      const was = pinned[n];
      const fields = Object.keys(now[n]!).filter(
        (k) => k !== 'sha256' && now[n]![k as keyof Golden] !== was?.[k as keyof Golden],
      );
      return `  ${n}: ${fields.map((k) => `${k} ${was?.[k as keyof Golden]} → ${now[n]![k as keyof Golden]}`).join(', ') || 'same profile, other text'}`;
    });
    if (process.env.UPDATE_GOLDEN === '1') {
      const accepted = new Set((process.env.GOLDEN_ACCEPT ?? '').split(',').filter(Boolean));
      const worse = names.filter((n) => pinned[n] && now[n]!.f1 < pinned[n]!.f1 && !accepted.has(n));
      console.log(`golden Markdown: ${changed.length} pages changed\n${report.join('\n')}`);
      expect(worse, 'pages whose F1 against Readability went down').toEqual([]);
      fs.writeFileSync(goldenFile, `${JSON.stringify(now, null, 2)}\n`);
      return;
    }
    expect(changed, `Markdown changed (UPDATE_GOLDEN=1 to accept):\n${report.join('\n')}`).toEqual([]);
  }, 300_000);
});
