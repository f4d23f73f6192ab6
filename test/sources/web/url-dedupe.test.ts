// When two URLs are one page (crawl and map share it): the pure key, the listed form, and the set
// that keeps the first form seen.
import { describe, expect, it } from 'vitest';
import { listedForm, UrlSet, urlKey, withoutQuery, withoutWww } from '../../../src/sources/web/url-dedupe.js';

const none = { ignoreQueryParameters: false, deduplicateSimilarURLs: false };
const similar = { ignoreQueryParameters: false, deduplicateSimilarURLs: true };
const noQuery = { ignoreQueryParameters: true, deduplicateSimilarURLs: false };
const both = { ignoreQueryParameters: true, deduplicateSimilarURLs: true };

const same = (opts: typeof none, ...urls: string[]) => new Set(urls.map((u) => urlKey(u, opts))).size === 1;

describe('urlKey', () => {
  it('is the URL itself without either option', () => {
    expect(urlKey('https://www.example.com/a/?x=1', none)).toBe('https://www.example.com/a/?x=1');
    expect(same(none, 'https://example.com/a', 'https://example.com/a/')).toBe(false);
  });

  it('makes www./bare, http/https, trailing slashes and index files one page', () => {
    expect(
      same(
        similar,
        'https://example.com/docs',
        'http://example.com/docs',
        'https://www.example.com/docs/',
        'http://www.example.com/docs//',
        'https://example.com/docs/index.html',
        'https://example.com/docs/index.htm',
        'http://www.example.com/docs/INDEX.PHP',
      ),
    ).toBe(true);
    expect(same(similar, 'https://example.com/', 'http://www.example.com/index.html')).toBe(true);
  });

  it('keeps apart what is another page or another server', () => {
    expect(same(similar, 'https://example.com/a', 'https://example.com/A')).toBe(false);
    expect(same(similar, 'https://example.com/a', 'https://example.com:8080/a')).toBe(false);
    expect(same(similar, 'https://example.com/a', 'https://blog.example.com/a')).toBe(false);
    expect(same(similar, 'https://example.com/a?x=1', 'https://example.com/a?x=2')).toBe(false);
    expect(same(similar, 'https://example.com/docs/main.html', 'https://example.com/docs')).toBe(false);
    expect(same(similar, 'https://example.com/myindex.html', 'https://example.com/')).toBe(false);
    // Only one www. goes, and only a leading one.
    expect(same(similar, 'https://www.www.example.com/', 'https://example.com/')).toBe(false);
    expect(same(similar, 'https://awww.example.com/', 'https://example.com/')).toBe(false);
  });

  it('drops the query with ignoreQueryParameters, and only the query', () => {
    expect(
      same(noQuery, 'https://example.com/a?x=1', 'https://example.com/a?y=2', 'https://example.com/a'),
    ).toBe(true);
    expect(same(noQuery, 'https://example.com/a', 'https://example.com/a/')).toBe(false);
    expect(same(noQuery, 'https://example.com/a', 'http://example.com/a')).toBe(false);
    expect(same(both, 'http://www.example.com/a/index.php?page=2', 'https://example.com/a')).toBe(true);
  });

  it('gives a string that is not a URL back as it is', () => {
    expect(urlKey('not a url', both)).toBe('not a url');
  });
});

describe('listedForm, withoutQuery, withoutWww', () => {
  it('lists a URL without its query only when queries are ignored', () => {
    expect(listedForm('https://example.com/a?x=1', noQuery)).toBe('https://example.com/a');
    expect(listedForm('https://example.com/a?x=1', similar)).toBe('https://example.com/a?x=1');
    expect(withoutQuery('https://example.com/a?x=1?y')).toBe('https://example.com/a');
    expect(withoutQuery('https://example.com/a')).toBe('https://example.com/a');
  });

  it('drops one leading www. from a host, never the whole host', () => {
    expect(withoutWww('www.example.com')).toBe('example.com');
    expect(withoutWww('example.com')).toBe('example.com');
    expect(withoutWww('www.')).toBe('www.');
  });
});

describe('UrlSet', () => {
  it('keeps each page once, in the first form seen and in order', () => {
    const set = new UrlSet(both);
    for (const u of [
      'http://example.com/b/',
      'https://example.com/a?x=1',
      'https://www.example.com/b',
      'https://example.com/a?x=2',
      'https://example.com/c/index.html',
      'https://example.com/c',
    ])
      set.add(u);
    expect(set.urls).toEqual([
      'http://example.com/b/',
      'https://example.com/a',
      'https://example.com/c/index.html',
    ]);
    expect(set.size).toBe(3);
    expect(set.has('https://www.example.com/c/')).toBe(true);
    expect(set.has('https://example.com/d')).toBe(false);
    expect(set.add('https://example.com/b')).toBe(false);
  });
});
