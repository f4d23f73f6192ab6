// Caption track choice in DESIGN §4's order on real tracklists (6 manual + 1 auto-generated; 40
// manual and no auto-generated), and the timedtext URL it leads to.
import { describe, expect, it } from 'vitest';
import { parsePlayer } from '../../../src/sources/youtube/player.js';
import {
  availableLangs,
  chooseTrack,
  originalTrack,
  timedtextUrl,
  translationChoice,
} from '../../../src/sources/youtube/tracks.js';
import { CAPTURES, youtubeJson } from '../../support/youtube-replay.js';

const surface = parsePlayer(youtubeJson(CAPTURES.playerOk)); // zh cs en a.en de hi ja ko es
const rewind = parsePlayer(youtubeJson('pytube/2lAe1cqCOXo.player.json')); // 40 manual, default en
const pick = (info: typeof surface, lang?: string) => {
  const c = chooseTrack(info, lang);
  return c && { vss: c.track.vssId, lang: c.lang, tlang: c.tlang };
};

describe('chooseTrack', () => {
  it('takes the manual track in lang before the auto-generated one', () => {
    expect(pick(surface, 'en')).toEqual({ vss: '.en', lang: 'en', tlang: null });
    expect(pick(surface, 'de')).toEqual({ vss: '.de', lang: 'de', tlang: null });
  });

  it('takes the auto-generated track when it is the only one in lang', () => {
    const asrOnly = { ...surface, tracks: surface.tracks.filter((t) => t.vssId !== '.en') };
    expect(pick(asrOnly, 'en')).toEqual({ vss: 'a.en', lang: 'en', tlang: null });
  });

  it('matches regional variants and case both ways', () => {
    expect(pick(surface, 'en-US')).toEqual({ vss: '.en', lang: 'en', tlang: null });
    expect(pick(surface, 'DE')).toEqual({ vss: '.de', lang: 'de', tlang: null });
    expect(pick(rewind, 'pt')?.lang).toBe('pt-BR');
    expect(pick(rewind, 'pt-PT')?.lang).toBe('pt-PT');
    expect(pick(rewind, 'en')?.lang).toBe('en'); // the exact code beats en-GB
    expect(pick(rewind, 'en-GB')?.lang).toBe('en-GB');
    expect(pick(rewind, 'he')?.lang).toBe('iw'); // the platform still says iw for Hebrew
  });

  it('translates the original track with tlang where the platform offers the language', () => {
    expect(pick(surface, 'nl')).toEqual({ vss: '.en', lang: 'nl', tlang: 'nl' });
    expect(pick(surface, 'ar')).toEqual({ vss: '.en', lang: 'ar', tlang: 'ar' });
    expect(pick(rewind, 'af')).toEqual({ vss: '.en', lang: 'af', tlang: 'af' });
  });

  it('falls back to the original-language track when lang is neither native nor translatable', () => {
    expect(pick(surface, 'tlh')).toEqual({ vss: '.en', lang: 'en', tlang: null });
    const untranslatable = {
      ...surface,
      tracks: surface.tracks.map((t) => ({ ...t, isTranslatable: false })),
    };
    expect(pick(untranslatable, 'nl')).toEqual({ vss: '.en', lang: 'en', tlang: null });
  });

  it('without lang answers the original language, manual before auto-generated', () => {
    expect(pick(surface)).toEqual({ vss: '.en', lang: 'en', tlang: null });
    expect(pick(rewind)).toEqual({ vss: '.en', lang: 'en', tlang: null });
    // The spoken language is the auto-generated track's, even where the default track is another.
    const germanDefault = { ...surface, defaultTrackIndex: 4 };
    expect(originalTrack(germanDefault)?.vssId).toBe('.en');
    const asrOnly = { ...surface, tracks: surface.tracks.filter((t) => t.vssId !== '.en') };
    expect(pick(asrOnly)).toEqual({ vss: 'a.en', lang: 'en', tlang: null });
  });

  it('trusts isTranslatable when the client lists no translation languages', () => {
    expect(pick({ ...surface, translationLanguages: [] }, 'fr')).toEqual({
      vss: '.en',
      lang: 'fr',
      tlang: 'fr',
    });
  });

  it('answers null when there are no tracks', () => {
    expect(chooseTrack({ tracks: [], defaultTrackIndex: null, translationLanguages: [] }, 'en')).toBeNull();
  });
});

describe('availableLangs and timedtextUrl', () => {
  it('lists each native language once, in the platform order', () => {
    expect(availableLangs(surface.tracks)).toEqual(['zh', 'cs', 'en', 'de', 'hi', 'ja', 'ko', 'es']);
    expect(availableLangs(rewind.tracks)).toHaveLength(40);
  });

  it('asks for the default XML format and adds tlang for translations', () => {
    const plain = new URL(timedtextUrl(chooseTrack(surface, 'en')!));
    expect(plain.searchParams.get('fmt')).toBeNull();
    expect(plain.searchParams.get('lang')).toBe('en');
    expect(plain.searchParams.get('tlang')).toBeNull();
    expect(plain.searchParams.get('signature')).toMatch(/^1F9610/);
    const translated = new URL(timedtextUrl(chooseTrack(surface, 'nl')!));
    expect(translated.searchParams.get('lang')).toBe('en');
    expect(translated.searchParams.get('tlang')).toBe('nl');
    const asr = new URL(timedtextUrl(chooseTrack({ ...surface, tracks: [surface.tracks[3]!] }, 'en')!));
    expect(asr.searchParams.get('kind')).toBe('asr');
  });
});

describe('translationChoice', () => {
  const translate = (info: typeof surface, lang: string) => {
    const c = translationChoice(info, lang);
    return c && { vss: c.track.vssId, lang: c.lang, tlang: c.tlang };
  };

  it('takes a track already in the language, else the platform translation of the original', () => {
    expect(translate(surface, 'de')).toEqual({ vss: '.de', lang: 'de', tlang: null });
    expect(translate(surface, 'en-GB')).toEqual({ vss: '.en', lang: 'en', tlang: null });
    expect(translate(surface, 'nl')).toEqual({ vss: '.en', lang: 'nl', tlang: 'nl' });
    expect(translate(rewind, 'af')).toEqual({ vss: '.en', lang: 'af', tlang: 'af' });
  });

  it('never falls back to another language: null where the platform does not translate', () => {
    expect(surface.translationLanguages.map((l) => l.languageCode)).not.toContain('sw');
    expect(translate(surface, 'sw')).toBeNull();
    const untranslatable = {
      ...surface,
      tracks: surface.tracks.map((t) => ({ ...t, isTranslatable: false })),
    };
    expect(translate(untranslatable, 'nl')).toBeNull();
    expect(translate({ ...surface, tracks: [] }, 'en')).toBeNull();
  });
});
