// The page's title heading in scraped Markdown: Readability takes the <h1> that repeats the title out
// of the article; parsePage puts it back as the leading `# ` line, once, and never makes one up.
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../../src/sources/web/page.js';

const URL_ = 'https://example.test/post';
const words = (sentence: string, times: number) => `${sentence} `.repeat(times).trim();
const ARTICLE_TEXT = words('Widgets are built with care and patience by our team of experts.', 8);
const STEP_TEXT = words('First we plan the widget in detail, then we sketch it carefully.', 8);

const headingLines = (md: string) => md.split('\n').filter((l) => /^#{1,6} /.test(l));

describe('the title heading of scraped Markdown', () => {
  it('keeps the <h1> of a simple page as the first line', () => {
    const html = `<!doctype html><html><head><title>Example Domain</title></head><body><div>
      <h1>Example Domain</h1>
      <p>This domain is for use in illustrative examples in documents. You may use this domain in literature without prior coordination or asking for permission.</p>
      <p><a href="https://www.iana.org/domains/example">More information...</a></p></div></body></html>`;
    expect(parsePage(html, 'https://example.com/').content).toMatch(
      /^# Example Domain\n\nThis domain is for use in illustrative examples/,
    );
  });

  it("puts the article's heading first, not the site's logo, and turns no subheading into a title", () => {
    const html = `<html><head><title>How we build widgets | Acme Blog</title></head><body>
      <header><h1 class="site-logo"><a href="/">Acme Blog</a></h1><nav><a href="/">Home</a></nav></header>
      <article><h1>How we build widgets</h1><p>${ARTICLE_TEXT}</p>
      <h2>Step one</h2><p>${STEP_TEXT}</p></article></body></html>`;
    const { content, name } = parsePage(html, URL_);
    expect(content).toMatch(/^# How we build widgets\n\nWidgets are built/);
    expect(headingLines(content)).toEqual(['# How we build widgets', '## Step one']);
    expect(name).toBe('How we build widgets | Acme Blog');
  });

  it('says the title heading once, however the content was found', () => {
    // A list page: not an article, so the cleaned whole page (with its <h1> in place) is the content.
    const links = Array.from({ length: 40 }, (_, i) => `<li><a href="/p/${i}">Product number ${i}</a></li>`);
    const list = `<html><head><title>All products</title></head><body><h1>All products</h1><ul>${links.join('')}</ul></body></html>`;
    expect(headingLines(parsePage(list, URL_).content)).toEqual(['# All products']);
    // An article whose title heading Readability kept (its text is not the <title>'s): one <h1>, not two.
    const kept = `<html><head><title>Acme</title></head><body><article><h1>Acme</h1><p>${ARTICLE_TEXT}</p>
      <h1>Acme</h1><p>${STEP_TEXT}</p></article></body></html>`;
    expect(headingLines(parsePage(kept, URL_).content).filter((l) => l === '# Acme')).toHaveLength(1);
  });

  it('makes up no heading from <title> alone, nor from an <h1> that no reader sees', () => {
    const bare = `<html><head><title>Widgets</title></head><body><article><p>${ARTICLE_TEXT}</p><p>${STEP_TEXT}</p></article></body></html>`;
    expect(headingLines(parsePage(bare, URL_).content)).toEqual([]);
    const hidden = `<html><head><title>Widgets</title></head><body><article><h1 aria-hidden="true">Widgets</h1>
      <p>${ARTICLE_TEXT}</p><p>${STEP_TEXT}</p></article></body></html>`;
    expect(headingLines(parsePage(hidden, URL_).content)).toEqual([]);
  });

  it('keeps the heading as text when links are left out, and escapes it as Markdown', () => {
    const html = `<html><head><title>Why *stars* shine</title></head><body><article>
      <h1><a href="/why">Why *stars* shine</a></h1><p>${ARTICLE_TEXT}</p><p>${STEP_TEXT}</p></article></body></html>`;
    const { content } = parsePage(html, URL_, { noLinks: true });
    expect(content.split('\n')[0]).toBe('# Why \\*stars\\* shine');
  });
});
