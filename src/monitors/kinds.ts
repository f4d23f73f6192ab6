// What a monitor watches and how: the four kinds, the body that creates one, the options each kind
// takes, and what a check of each may cost (the check job holds that before it runs).
import { type Static, Type } from '@sinclair/typebox';
import { prices } from '../billing/prices.js';
import { StringEnum } from '../schemas.js';

export const MONITOR_KINDS = ['channel', 'playlist', 'page', 'site'] as const;
export type MonitorKind = (typeof MONITOR_KINDS)[number];

/** Most new videos one check reports (the rest are reported by the next check). */
export const MAX_NEW_VIDEOS = 50;
/** Most pages a site monitor maps (and scrapes, with `scrape`). */
export const MAX_SITE_PAGES = 1000;
/** Most pages a site monitor keeps the text of, for diffs (`diff: true`). */
export const MAX_SITE_DIFF_PAGES = 50;

const TranscriptOption = Type.Object(
  {
    mode: StringEnum(['native', 'auto', 'generate'] as const, {
      default: 'auto',
      description:
        'native: the platform captions only; auto: captions, else speech recognition; generate: speech recognition',
    }),
    lang: Type.Optional(
      Type.String({ minLength: 2, maxLength: 16, pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$' }),
    ),
  },
  { additionalProperties: false, description: 'Each new video comes with its transcript, at its price' },
);

/** The options of every kind; each kind reads its own, the others are refused (monitorInput). */
export const MonitorOptions = {
  transcript: Type.Optional(TranscriptOption),
  maxVideos: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_NEW_VIDEOS,
      description: `channel, playlist: most new videos one check reports (default 10); more wait for the next check`,
    }),
  ),
  render: Type.Optional(
    StringEnum(['auto', 'always', 'never'] as const, {
      description: 'page, site: render pages in a headless browser (default auto: only pages that need it)',
    }),
  ),
  schema: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'page: a JSON Schema; each check also extracts these fields and reports which changed',
      },
    ),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_SITE_PAGES,
      description: `site: most pages mapped (default 100)`,
    }),
  ),
  scrape: Type.Optional(
    Type.Boolean({ description: 'site: also scrape each page and report the pages that changed' }),
  ),
  diff: Type.Optional(
    Type.Boolean({
      description: `site with scrape: each changed page comes with its diff (at most ${MAX_SITE_DIFF_PAGES} pages)`,
    }),
  ),
};

export type MonitorOptionValues = {
  -readonly [K in keyof typeof MonitorOptions]?: Static<(typeof MonitorOptions)[K]>;
};

/** Which options a kind takes. */
export const OPTIONS_OF: Readonly<Record<MonitorKind, ReadonlyArray<keyof MonitorOptionValues>>> = {
  channel: ['transcript', 'maxVideos'],
  playlist: ['transcript', 'maxVideos'],
  page: ['render', 'schema'],
  site: ['render', 'limit', 'scrape', 'diff'],
};

/**
 * A check's own rates, in credits: the extraction of a page monitor's fields (its JSON Schema) by the
 * language model. Its requests (listings, scrapes, maps, video metadata) cost what a synchronous
 * request does, and its transcripts their own price.
 */
export const MONITOR_CHECK_PRICES = { fieldsExtraction: 2 } as const;

export const DEFAULT_MAX_VIDEOS = 10;
export const DEFAULT_SITE_LIMIT = 100;

/** What sizes a check's hold (copied into its job input from the monitor's options). */
export interface CheckSize {
  maxVideos?: number;
  limit?: number;
  scrape?: boolean;
  /** A site check on a short balance scrapes only this many of the pages it maps. */
  scrapeLimit?: number;
  /** A page monitor with a schema: its fields are extracted. */
  fields?: boolean;
}

/** The most one check of a monitor can cost (its transcripts are billed apart, each at its price). */
export function checkEstimate(kind: MonitorKind, size: CheckSize): number {
  switch (kind) {
    case 'channel':
    case 'playlist':
      // The listing, and the metadata of each new video reported.
      return prices.syncRequest * (1 + (size.maxVideos ?? DEFAULT_MAX_VIDEOS));
    case 'page':
      return prices.syncRequest + (size.fields ? MONITOR_CHECK_PRICES.fieldsExtraction : 0);
    case 'site':
      return (
        prices.syncRequest * (1 + (size.scrape ? (size.scrapeLimit ?? size.limit ?? DEFAULT_SITE_LIMIT) : 0))
      );
  }
}
