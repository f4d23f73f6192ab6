// Counts and relative dates as the platform writes them, read from the captures where they occur
// (English, French, German pages) and over every grouping style a locale formats integers with.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCount, parseRelativeTime } from '../../../src/sources/youtube/counts.js';
import { dig, findAll, textOf } from '../../../src/sources/youtube/tree.js';
import { captureInitialData } from '../../support/youtube-captures.js';

describe('parseCount', () => {
  it.each([
    // as the captures write them (NBSP and narrow NBSP included)
    ['1,66\u00a0M d’abonnés', 1_660_000], // channel header, fr
    ['1,66 million d’abonnés', 1_660_000], // its accessibility label
    ['4.14M subscribers', 4_140_000],
    ['4.14 million subscribers', 4_140_000],
    ['2,43\u00a0Mio. Abonnenten', 2_430_000], // 2020 header, de
    ['3,4\u00a0k\u00a0vidéos', 3_400],
    ['287K videos', 287_000],
    ['1\u202f173\u00a0vues', 1_173],
    ['6.180.784 Aufrufe', 6_180_784],
    ['137,724,151 views', 137_724_151],
    ['137M views', 137_000_000],
    ['1.8M views', 1_800_000],
    ['14K views', 14_000],
    ['103,657,877 views', 103_657_877],
    ['857 videos', 857],
    ['1M', 1_000_000],
    // zero written as a word
    ['No views', 0],
    ['No comments', 0],
    ['Aucune vue', 0],
    ['Keine Aufrufe', 0],
    // other abbreviations
    ['1.2B views', 1_200_000_000],
    ['3,1 Mrd. Aufrufe', 3_100_000_000],
    ['1,2 mil visualizaciones', 1_200],
    ['1.2万 回視聴', 12_000],
    ['2.5 lakh views', 250_000],
    ['12 345 vues', 12_345],
    ['1’234 Aufrufe', 1_234],
  ])('%s → %d', (text, n) => {
    expect(parseCount(text)).toBe(n);
  });

  it.each([null, undefined, '', '   ', 'views', 'Subscribe'])('%s → null', (text) => {
    expect(parseCount(text)).toBeNull();
  });

  it('reads whole counts in every grouping style a locale writes', () => {
    const locales = ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'pt-BR', 'it-IT', 'de-CH', 'en-IN', 'ru-RU'];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), fc.constantFrom(...locales), (n, locale) => {
        expect(parseCount(`${n.toLocaleString(locale)} views`)).toBe(n);
      }),
    );
  });

  it('reads every view count of a 2023 French channel tab and a 2020 German channel page', () => {
    for (const file of ['pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html', 'node-ytpl/userPage.html']) {
      const texts = findAll(captureInitialData(file), 'viewCountText').map(textOf);
      expect(texts.length).toBeGreaterThan(20);
      for (const t of texts) expect(parseCount(t), String(t)).toBeTypeOf('number');
    }
    // The fourth video of the French tab, "1 173 vues" with a narrow no-break space.
    const fr = findAll(
      captureInitialData('pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html'),
      'videoRenderer',
    );
    expect(dig(fr[3], 'videoId')).toBe('RphKLsy3tSc');
    expect(parseCount(textOf(dig(fr[3], 'viewCountText')))).toBe(1173);
  });
});

describe('parseRelativeTime', () => {
  const now = Date.parse('2024-11-01T12:00:00Z');
  it.each([
    ['1 day ago', '2024-10-31T12:00:00.000Z'],
    ['5 days ago', '2024-10-27T12:00:00.000Z'],
    ['2 weeks ago', '2024-10-18T12:00:00.000Z'],
    ['1 month ago', '2024-10-02T12:00:00.000Z'],
    ['6 months ago', '2024-05-05T12:00:00.000Z'],
    ['2 years ago', '2022-11-02T12:00:00.000Z'],
    ['3 hours ago', '2024-11-01T09:00:00.000Z'],
    ['45 minutes ago', '2024-11-01T11:15:00.000Z'],
    ['10 seconds ago', '2024-11-01T11:59:50.000Z'],
    ['3 weeks ago (edited)', '2024-10-11T12:00:00.000Z'],
    ['Streamed 2 days ago', '2024-10-30T12:00:00.000Z'],
    ['just now', '2024-11-01T12:00:00.000Z'],
  ])('%s', (text, iso) => {
    expect(parseRelativeTime(text, now)).toBe(iso);
  });

  it('reads every published time of a 2023 English watch page', () => {
    const texts = findAll(captureInitialData('pytube/2lAe1cqCOXo.watch.html'), 'publishedTimeText').map(
      textOf,
    );
    expect(texts).toContain('9 years ago');
    for (const t of texts) expect(parseRelativeTime(t, now), String(t)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it.each([null, '', 'il y a 15 heures', 'Premiered Mar 3, 2021', 'yesterday'])('%s → null', (text) => {
    expect(parseRelativeTime(text, now)).toBeNull();
  });
});
