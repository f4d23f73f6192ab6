// Chapters: what the captured watch pages mark (automatic chapters, "Key moments", in two of them;
// heat markers, which are not chapters, in two; the uploader's chapters in none, so their layouts are
// constructed here), the description's timestamps by the platform's rules, the order of the sources,
// and a transcript shaped by chapter.
import { describe, expect, it } from 'vitest';
import { shapeTranscript, type TranscriptCue } from '../../../src/sources/transcript.js';
import {
  chaptersFromNext,
  descriptionMarks,
  markedChapters,
  type PageChapters,
  parseTimestamp,
  videoChapters,
  writtenChapters,
} from '../../../src/sources/youtube/chapters.js';
import { parsePlayer } from '../../../src/sources/youtube/player.js';
import { findAll } from '../../../src/sources/youtube/tree.js';
import { toVideo } from '../../../src/sources/youtube/video.js';
import { parseWatchPage } from '../../../src/sources/youtube/watch-page.js';
import { CAPTURES, youtubeJson, youtubeText } from '../../support/youtube-replay.js';

const page = (file: string) => parseWatchPage(youtubeText(file));
const NONE: PageChapters = { uploader: [], automatic: [] };

// GJLlxj_dtq8's "Key moments" panel, starts from each item's link (startTimeSeconds).
const KEY_MOMENTS = [
  ['Build Quality', 39160],
  ['Screen', 66010],
  ['Pen Support', 106720],
  ['Webcam', 129190],
  ['Keyboard', 155590],
  ['Trackpad', 188200],
  ['Performance', 199780],
  ['Battery Life', 220300],
  ['Gaming Performance', 236500],
  ['Ports', 254709],
].map(([title, startMs]) => ({ title, startMs }));

describe('chaptersFromNext on the captures', () => {
  it('GJLlxj_dtq8 (2025): the automatic chapters of its Key moments panel, none of the uploader', () => {
    const { initialData } = page(CAPTURES.watchPage);
    expect(chaptersFromNext(initialData)).toEqual({ uploader: [], automatic: KEY_MOMENTS });
  });

  it('2lAe1cqCOXo (2023): three Key moments; its 100 heat markers are not chapters', () => {
    const { initialData } = page('pytube/2lAe1cqCOXo.watch.html');
    // The trap is there: "most replayed" slices timed with timeRangeStartMillis, from 0.
    expect(findAll(initialData, 'heatMarkerRenderer')).toHaveLength(100);
    expect(chaptersFromNext(initialData)).toEqual({
      uploader: [],
      automatic: [
        { title: 'MOST LIKED CREATOR VIDEOS of 2019, duh...', startMs: 60_000 },
        { title: 'DANCE VIDEOS', startMs: 134_000 },
        { title: 'BREAK OUT', startMs: 202_000 },
      ],
    });
  });

  it('marks nothing on every other capture (WXxV9g7lsFE has heat markers only)', () => {
    const files = [
      'pytube/WXxV9g7lsFE.watch.html',
      'pytube/5YceQ8YqYMc.watch.html',
      'pytube/irauhITDrsE.watch.html',
      'pytube/m8uHb5jIGN8.watch.html',
      'node-ytdl-core/regular.watch.html',
      'node-ytdl-core/regular.watch.json',
      'node-ytdl-core/live-now.watch.html',
      'node-ytdl-core/longest-upload.watch.html',
      'node-ytdl-core/no-embed.watch.json',
      'node-ytdl-core/live-future.watch.json',
      'node-ytdl-core/age-restricted.watch.html',
    ];
    expect(findAll(page(files[0]!).initialData, 'heatMarkerRenderer')).toHaveLength(100);
    for (const file of files) expect([file, chaptersFromNext(page(file).initialData)]).toEqual([file, NONE]);
  });

  it('junk marks nothing', () => {
    for (const junk of [null, undefined, 'x', [], {}, { playerOverlays: { markersMap: 'x' } }]) {
      expect(chaptersFromNext(junk)).toEqual(NONE);
    }
  });
});

// Constructed, not captured: the uploader's chapters in the layouts yt-dlp reads them from (the 2020
// chapteredPlayerBarRenderer, the later multiMarkersPlayerBarRenderer markers map, the Chapters
// panel). Titles and times are made up.
const bar = (playerBar: unknown) => ({
  playerOverlays: {
    playerOverlayRenderer: {
      decoratedPlayerBarRenderer: { decoratedPlayerBarRenderer: { playerBar } },
    },
  },
});
const chapter = (title: string, ms: number) => ({
  chapterRenderer: { title: { simpleText: title }, timeRangeStartMillis: ms },
});
const panel = (id: string, items: unknown[]) => ({
  engagementPanelSectionListRenderer: {
    panelIdentifier: id,
    content: { macroMarkersListRenderer: { contents: items } },
  },
});
const panelItem = (title: string, shown: string, seconds?: number) => ({
  macroMarkersListItemRenderer: {
    title: { simpleText: title },
    timeDescription: { simpleText: shown },
    ...(seconds !== undefined && { onTap: { watchEndpoint: { startTimeSeconds: seconds } } }),
  },
});
const UPLOADER = [
  { title: 'Intro', startMs: 0 },
  { title: 'Setup', startMs: 15_000 },
  { title: 'Result', startMs: 62_500 },
];

describe('chaptersFromNext on constructed layouts of the uploader’s chapters', () => {
  it('the markers map: DESCRIPTION_CHAPTERS and AUTO_CHAPTERS by kind, HEATSEEKER never', () => {
    const data = bar({
      multiMarkersPlayerBarRenderer: {
        markersMap: [
          {
            key: 'HEATSEEKER',
            value: {
              heatmap: {
                heatmapRenderer: { heatMarkers: [{ heatMarkerRenderer: { timeRangeStartMillis: 0 } }] },
              },
            },
          },
          {
            key: 'DESCRIPTION_CHAPTERS',
            value: {
              chapters: [chapter('Intro', 0), chapter(' Setup\n', 15_000), chapter('Result', 62_500)],
            },
          },
          { key: 'AUTO_CHAPTERS', value: { chapters: [chapter('Auto', 5_000)] } },
        ],
      },
    });
    expect(chaptersFromNext(data)).toEqual({
      uploader: UPLOADER,
      automatic: [{ title: 'Auto', startMs: 5_000 }],
    });
  });

  it('the 2020 chapteredPlayerBarRenderer', () => {
    const data = bar({
      chapteredPlayerBarRenderer: {
        chapters: [chapter('Intro', 0), chapter('Setup', 15_000), chapter('Result', 62_500), { junk: 1 }],
      },
    });
    expect(chaptersFromNext(data).uploader).toEqual(UPLOADER);
  });

  it('the Chapters panel when the bar marks none: the link’s exact start, else the shown time', () => {
    const data = {
      engagementPanels: [
        panel('engagement-panel-structured-description', [panelItem('Not a chapter', '0:05', 5)]),
        panel('engagement-panel-macro-markers-description-chapters', [
          panelItem('Intro', '0:00', 0),
          panelItem('Setup', '0:15'),
          panelItem('Result', '1:02', 62.5),
        ]),
      ],
    };
    expect(chaptersFromNext(data)).toEqual({ uploader: UPLOADER, automatic: [] });
  });

  it('the bar wins over the panel', () => {
    const data = {
      ...bar({ chapteredPlayerBarRenderer: { chapters: [chapter('Bar', 0)] } }),
      engagementPanels: [
        panel('engagement-panel-macro-markers-description-chapters', [panelItem('Panel', '0:00', 0)]),
      ],
    };
    expect(chaptersFromNext(data).uploader).toEqual([{ title: 'Bar', startMs: 0 }]);
  });
});

describe('parseTimestamp', () => {
  it('reads m:ss, mm:ss, h:mm:ss and minutes past 59 without hours', () => {
    expect(parseTimestamp('0:00')).toBe(0);
    expect(parseTimestamp('01:02')).toBe(62_000);
    expect(parseTimestamp('1:02:03')).toBe(3_723_000);
    expect(parseTimestamp('01:02:03')).toBe(3_723_000);
    expect(parseTimestamp('75:30')).toBe(4_530_000);
  });

  it('refuses what is not a time', () => {
    for (const bad of [
      '',
      '0',
      '0:6',
      '0:60',
      '1:60:00',
      '1:2:03',
      '1:02:03:04',
      'a:bc',
      '-0:10',
      '1234:00',
    ]) {
      expect([bad, parseTimestamp(bad)]).toEqual([bad, null]);
    }
  });
});

const titles = (description: string) => descriptionMarks(description).map((m) => [m.startMs, m.title]);

describe('descriptionMarks: the platform’s rules', () => {
  it('reads the lines that begin with a timestamp, whatever separates the title', () => {
    const description = [
      'My trip, told in parts.',
      '',
      '0:00 Intro',
      '1:02 - Part one',
      '2:03 – Part two',
      '3:04: Part three',
      '4:05 | Part four',
      '1:02:03 — Finale',
      '',
      'Thanks for watching!',
    ].join('\n');
    expect(titles(description)).toEqual([
      [0, 'Intro'],
      [62_000, 'Part one'],
      [123_000, 'Part two'],
      [184_000, 'Part three'],
      [245_000, 'Part four'],
      [3_723_000, 'Finale'],
    ]);
  });

  it('takes brackets, bullets, CRLF, and keeps dashes and emoji inside titles', () => {
    const description = '[0:00] 🎬 Intro\r\n• (0:45) Q&A - part 1 – the start\r\n- 01:30 Wrap-up 👋 ✨\r\n';
    expect(titles(description)).toEqual([
      [0, '🎬 Intro'],
      [45_000, 'Q&A - part 1 – the start'],
      [90_000, 'Wrap-up 👋 ✨'],
    ]);
  });

  it('ignores lines that merely contain a time, a time glued to a word, and a time without a title', () => {
    const description = [
      'We met at 0:00 sharp and left at 7:30.',
      'Doors open at 19:30',
      '0:00 Intro',
      '10:00am is when it starts',
      '1:00',
      '1:10 Middle',
      'Best part at 2:00 for sure',
      '2:20 End',
    ].join('\n');
    expect(titles(description)).toEqual([
      [0, 'Intro'],
      [70_000, 'Middle'],
      [140_000, 'End'],
    ]);
  });

  it('none at all unless the first is 0:00, each is later than the one before, and there are three', () => {
    expect(titles('0:05 Intro\n1:00 A\n2:00 B')).toEqual([]); // not from 0:00
    expect(titles('0:00 Intro\n2:00 B\n1:00 A\n3:00 C')).toEqual([]); // out of order
    expect(titles('0:00 Intro\n1:00 A\n1:00 B')).toEqual([]); // not later
    expect(titles('0:00 Intro\n1:00 A')).toEqual([]); // two
    expect(titles('')).toEqual([]);
    expect(descriptionMarks(null)).toEqual([]);
  });
});

describe('writtenChapters, markedChapters, videoChapters', () => {
  const description = '0:00 Intro\n0:15 Setup\n1:02:03 Finale';

  it('closes each chapter at the next one’s start and the last at the video’s end', () => {
    expect(writtenChapters(description, 4_000_000)).toEqual([
      { title: 'Intro', startMs: 0, endMs: 15_000 },
      { title: 'Setup', startMs: 15_000, endMs: 3_723_000 },
      { title: 'Finale', startMs: 3_723_000, endMs: 4_000_000 },
    ]);
  });

  it('a description: none if one would be under 10 s or start past the end', () => {
    expect(writtenChapters('0:00 A\n0:09 B\n1:00 C', 120_000)).toEqual([]);
    expect(writtenChapters('0:00 A\n0:10 B\n1:00 C', 120_000)).toHaveLength(3);
    expect(writtenChapters('0:00 A\n0:10 B\n1:55 C', 120_000)).toEqual([]); // the last lasts 5 s
    expect(writtenChapters(description, 3_000_000)).toEqual([]); // Finale after the end
  });

  it('marks: only what cannot be drawn is dropped (past the end, not later than the one before)', () => {
    const marks = [
      { title: 'A', startMs: 39_160 },
      { title: 'A again', startMs: 39_160 },
      { title: 'B', startMs: 66_010 },
      { title: 'Past the end', startMs: 400_000 },
    ];
    expect(markedChapters(marks, 316_000)).toEqual([
      { title: 'A', startMs: 39_160, endMs: 66_010 },
      { title: 'B', startMs: 66_010, endMs: 316_000 },
    ]);
  });

  it('the uploader’s marks first, then the description, then the automatic chapters', () => {
    const automatic = [{ title: 'Key moment', startMs: 30_000 }];
    const uploader = [
      { title: 'Marked', startMs: 0 },
      { title: 'Marked 2', startMs: 20_000 },
    ];
    expect(videoChapters({ uploader, automatic }, description, 4_000)[0]?.title).toBe('Marked');
    expect(videoChapters({ uploader: [], automatic }, description, 4_000)[0]?.title).toBe('Intro');
    expect(videoChapters({ uploader: [], automatic }, 'no timestamps', 4_000)).toEqual([
      { title: 'Key moment', startMs: 30_000, endMs: 4_000_000 },
    ]);
    expect(videoChapters(null, description, 4_000)).toHaveLength(3); // no watch page: the description
    expect(videoChapters(undefined, 'no timestamps', 4_000)).toEqual([]);
  });

  it('no length (live, upcoming): none', () => {
    expect(videoChapters({ uploader: UPLOADER, automatic: [] }, description, null)).toEqual([]);
    expect(videoChapters({ uploader: UPLOADER, automatic: [] }, description, 0)).toEqual([]);
  });
});

describe('toVideo: chapters', () => {
  const mobile = parsePlayer(youtubeJson(CAPTURES.playerOk));
  const watch = (file: string) => {
    const p = page(file);
    return { player: parsePlayer(p.player), likeCount: null, chapters: chaptersFromNext(p.initialData) };
  };

  it('GJLlxj_dtq8: its Key moments, the last ending at its 316 s', () => {
    const { chapters } = toVideo('GJLlxj_dtq8', mobile, watch(CAPTURES.watchPage));
    expect(chapters).toHaveLength(10);
    expect(chapters[0]).toEqual({ title: 'Build Quality', startMs: 39_160, endMs: 66_010 });
    expect(chapters[9]).toEqual({ title: 'Ports', startMs: 254_709, endMs: 316_000 });
  });

  it('without the watch page (or one kept before chapters were read): the description only, here none', () => {
    expect(toVideo('GJLlxj_dtq8', mobile, null).chapters).toEqual([]);
    const { chapters: _, ...kept } = watch(CAPTURES.watchPage);
    expect(toVideo('GJLlxj_dtq8', mobile, kept).chapters).toEqual([]);
  });

  it('live now: none', () => {
    const live = watch('node-ytdl-core/live-now.watch.html');
    expect(toVideo('5qap5aO4i9A', live.player, live).chapters).toEqual([]);
  });
});

const cue = (text: string, offset: number, duration = 1000): TranscriptCue => ({ text, offset, duration });
const native = (cues: TranscriptCue[]) => ({ cues, lang: 'en', availableLangs: ['en'] });
const CHAPTERS = [
  { title: 'Intro', startMs: 2_000, endMs: 5_000 },
  { title: 'Main', startMs: 5_000, endMs: 9_000 },
];
const CUES = [
  cue('Before.', 0),
  cue('Hello there.', 2_000),
  cue('Welcome.', 3_000),
  cue('Now the main part.', 5_000),
];

describe('shapeTranscript with chapters', () => {
  it('each chunk says the chapter it starts in; null before the first', () => {
    const chunks = shapeTranscript(native(CUES), { chapters: CHAPTERS }).content;
    expect(chunks).toEqual([
      { text: 'Before.', offset: 0, duration: 1000, lang: 'en', chapter: null },
      { text: 'Hello there.', offset: 2000, duration: 1000, lang: 'en', chapter: 'Intro' },
      { text: 'Welcome.', offset: 3000, duration: 1000, lang: 'en', chapter: 'Intro' },
      { text: 'Now the main part.', offset: 5000, duration: 1000, lang: 'en', chapter: 'Main' },
    ]);
  });

  it('merges within a chapter only, never across its start', () => {
    const chunks = shapeTranscript(native(CUES), { chapters: CHAPTERS, chunkSize: 1000 }).content;
    expect(chunks).toEqual([
      { text: 'Before.', offset: 0, duration: 1000, lang: 'en', chapter: null },
      { text: 'Hello there. Welcome.', offset: 2000, duration: 2000, lang: 'en', chapter: 'Intro' },
      { text: 'Now the main part.', offset: 5000, duration: 1000, lang: 'en', chapter: 'Main' },
    ]);
    // Without chapters the same cues make one chunk.
    expect(shapeTranscript(native(CUES), { chunkSize: 1000 }).content).toHaveLength(1);
  });

  it('text: each chapter’s title on its own line before its text, a blank line between chapters', () => {
    expect(shapeTranscript(native(CUES), { chapters: CHAPTERS, text: true }).content).toBe(
      'Before.\n\nIntro\nHello there. Welcome.\n\nMain\nNow the main part.',
    );
  });

  it('a video without chapters: chapter null on every chunk, the text as without chapters', () => {
    expect(shapeTranscript(native(CUES), { chapters: [] }).content).toEqual(
      CUES.map((c) => ({ ...c, lang: 'en', chapter: null })),
    );
    expect(shapeTranscript(native(CUES), { chapters: [], text: true }).content).toBe(
      shapeTranscript(native(CUES), { text: true }).content,
    );
  });

  it('chapters not asked: no chapter field at all', () => {
    const chunks = shapeTranscript(native(CUES)).content as object[];
    expect(chunks.some((c) => 'chapter' in c)).toBe(false);
  });
});
