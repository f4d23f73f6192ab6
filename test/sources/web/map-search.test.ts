// map's `search`: the words of a text, the BM25 ranking of URLs (matches first, the rest kept in
// order), and the words a page puts on its links.
import { describe, expect, it } from 'vitest';
import { linkTexts, rankUrls, searchTerms } from '../../../src/sources/web/map-search.js';

describe('searchTerms', () => {
  it('lower-cases, splits on anything but letters and digits, and drops a plural s', () => {
    expect(searchTerms('Pricing-Plans_for TEAMS/v2')).toEqual(['pricing', 'plan', 'for', 'team', 'v2']);
    expect(searchTerms('class glass bus is')).toEqual(['class', 'glass', 'bus', 'is']);
    expect(searchTerms('Café — déjà vu; 東京')).toEqual(['café', 'déjà', 'vu', '東京']);
    expect(searchTerms('  --  ')).toEqual([]);
  });
});

describe('rankUrls', () => {
  const b = 'https://example.com';
  const urls = [
    `${b}/`,
    `${b}/about`,
    `${b}/blog/pricing-changes-2024`,
    `${b}/pricing`,
    `${b}/docs/api`,
    `${b}/team`,
    `${b}/pricing/enterprise-plans`,
  ];

  it('puts the matches first, best first, and keeps the rest after them in their order', () => {
    const ranked = rankUrls(urls, 'pricing');
    // The shorter URL whose only word is the query ranks first; longer ones after it.
    expect(ranked[0]).toBe(`${b}/pricing`);
    expect(ranked.slice(1, 3).sort()).toEqual(
      [`${b}/blog/pricing-changes-2024`, `${b}/pricing/enterprise-plans`].sort(),
    );
    expect(ranked.slice(3)).toEqual([`${b}/`, `${b}/about`, `${b}/docs/api`, `${b}/team`]);
    expect(ranked).toHaveLength(urls.length);
  });

  it('scores more query words higher, and matches plurals to singulars', () => {
    const ranked = rankUrls(urls, 'Enterprise PLANS pricing');
    expect(ranked[0]).toBe(`${b}/pricing/enterprise-plans`);
    expect(rankUrls(urls, 'teams')[0]).toBe(`${b}/team`);
  });

  it('keeps the order of equal scores and of a query with no words', () => {
    const twins = [`${b}/x/api`, `${b}/y/api`, `${b}/z/api`];
    expect(rankUrls(twins, 'api')).toEqual(twins);
    expect(rankUrls(urls, '!!! ---')).toEqual(urls);
    expect(rankUrls([], 'api')).toEqual([]);
  });

  it('reads percent-encoded paths and queries, and gives the host half the weight of the path', () => {
    expect(rankUrls([`${b}/a`, `${b}/caf%C3%A9`], 'café')[0]).toBe(`${b}/caf%C3%A9`);
    expect(rankUrls([`${b}/a`, `${b}/search?q=shoes`], 'shoe')[0]).toBe(`${b}/search?q=shoes`);
    const ranked = rankUrls(['https://docs.example.com/intro', `${b}/docs`, `${b}/other`], 'docs');
    expect(ranked.slice(0, 2)).toEqual([`${b}/docs`, 'https://docs.example.com/intro']);
  });

  it("uses a link's words where it has them", () => {
    const texts = new Map([[`${b}/p/17`, 'Our pricing']]);
    const ranked = rankUrls([`${b}/p/16`, `${b}/p/17`], 'pricing', (u) => texts.get(u));
    expect(ranked).toEqual([`${b}/p/17`, `${b}/p/16`]);
  });
});

describe('linkTexts', () => {
  it("collects each link's text, title and image alt by its resolved URL, with <base>", () => {
    const html = `<html><head><base href="/docs/"></head><body>
      <a href="intro#top" title="Start here">Intro <b>page</b></a>
      <a href="/pricing"><img src="p.png" alt="Plans and prices"></a>
      <a href="INTRO">ignored twin? no: another URL</a>
      <a href="intro">again</a>
      <a name="anchor">no href</a> <a href="mailto:x@example.com">mail</a>
      <map><area href="/map-area" alt="An area" title="Area title"></map></body></html>`;
    const texts = linkTexts(html, 'https://example.com/start');
    expect(texts.get('https://example.com/docs/intro')).toBe('Start here Intro page again');
    expect(texts.get('https://example.com/pricing')).toBe('Plans and prices');
    expect(texts.get('https://example.com/docs/INTRO')).toBe('ignored twin? no: another URL');
    expect(texts.get('https://example.com/map-area')).toBe('An area Area title');
    expect([...texts.keys()].some((k) => k.startsWith('mailto'))).toBe(false);
  });

  it('caps the text kept per URL', () => {
    const html = `<a href="/x">${'word '.repeat(1000)}</a>`;
    expect(linkTexts(html, 'https://example.com/').get('https://example.com/x')!.length).toBeLessThanOrEqual(
      500,
    );
  });
});
