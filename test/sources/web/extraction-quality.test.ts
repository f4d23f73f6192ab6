// Main-content quality on real pages with human-annotated article text (Zyte's
// article-extraction-benchmark, shared split): mean token F1 of our Markdown against the annotation.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../../src/sources/web/page.js';
import { stripMarkdown, tokenF1, wordTokens } from '../../support/markdown-text.js';

const corpus = path.resolve(
  import.meta.dirname,
  '../../../../shared/fixtures/web/article-extraction-benchmark',
);

describe('main-content extraction on the article-extraction benchmark', () => {
  it('keeps the mean token F1 against the human annotation at 0.90 or better', () => {
    const ids = fs.readdirSync(corpus).filter((d) => fs.existsSync(path.join(corpus, d, 'expected.json')));
    expect(ids.length).toBeGreaterThan(100);
    const scores: Array<[string, number]> = [];
    for (const id of ids) {
      const html = zlib.gunzipSync(fs.readFileSync(path.join(corpus, id, 'source.html.gz'))).toString('utf8');
      const expected = JSON.parse(fs.readFileSync(path.join(corpus, id, 'expected.json'), 'utf8')) as {
        url: string;
        articleBody: string;
      };
      const page = parsePage(html, expected.url);
      scores.push([id, tokenF1(wordTokens(stripMarkdown(page.content)), wordTokens(expected.articleBody))]);
    }
    const mean = scores.reduce((s, [, f]) => s + f, 0) / scores.length;
    const worst = [...scores].sort((a, b) => a[1] - b[1]).slice(0, 5);
    console.log(
      `article-extraction-benchmark: ${scores.length} pages, mean token F1 ${mean.toFixed(4)}; ` +
        `worst: ${worst.map(([id, f]) => `${id} ${f.toFixed(2)}`).join(', ')}`,
    );
    expect(mean).toBeGreaterThanOrEqual(0.9);
  });
});
