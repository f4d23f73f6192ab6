// A video's chapters, {title, startMs, endMs} in order, the last ending where the video does. Taken
// from, in this order: the uploader's chapters as the watch page marks them (the player bar, else the
// Chapters panel); else the description's timestamps, held to the platform's own rules for turning
// them into chapters; else the platform's automatic chapters (its "Key moments" panel), which may
// begin after 0:00 — the uploader's word goes before the machine's. None of these: []. Heat markers
// ("most replayed", also timed by `timeRangeStartMillis`) are not chapters and are never read. Pure.
import type { Chapter } from '../transcript.js';
import { asArray, asString, dig, findAll, isRecord, textOf } from './tree.js';

/** A chapter's start as a page or a description gives it; its end is the next one's start. */
export interface ChapterMark {
  title: string;
  startMs: number;
}

/** What a watch page (or a /next answer) marks. */
export interface PageChapters {
  /** The uploader's chapters (written in the description, shown on the player bar). */
  uploader: ChapterMark[];
  /** The platform's automatic chapters, shown as "Key moments". */
  automatic: ChapterMark[];
}

const PANELS: Record<string, keyof PageChapters> = {
  'engagement-panel-macro-markers-description-chapters': 'uploader',
  'engagement-panel-macro-markers-auto-chapters': 'automatic',
};
const BAR_MARKERS: Record<string, keyof PageChapters> = {
  DESCRIPTION_CHAPTERS: 'uploader',
  AUTO_CHAPTERS: 'automatic',
};

/** One line of text: titles come from JSON text nodes, which may hold breaks or padding. */
const title = (node: unknown): string | null => textOf(node)?.replace(/\s+/g, ' ').trim() || null;

const millis = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : null;
};

function barMark(node: unknown): ChapterMark | null {
  const chapter = dig(node, 'chapterRenderer');
  const name = title(dig(chapter, 'title'));
  const startMs = millis(dig(chapter, 'timeRangeStartMillis'));
  return name && startMs !== null ? { title: name, startMs } : null;
}

function panelMark(node: unknown): ChapterMark | null {
  const item = dig(node, 'macroMarkersListItemRenderer');
  const name = title(dig(item, 'title'));
  // The link's start is exact (39.16 s); the shown "0:39" is rounded down.
  const seconds = dig(item, 'onTap', 'watchEndpoint', 'startTimeSeconds');
  const exact = typeof seconds === 'number' ? millis(seconds * 1000) : null;
  const startMs = exact ?? parseTimestamp(textOf(dig(item, 'timeDescription')) ?? '');
  return name && startMs !== null ? { title: name, startMs } : null;
}

const marks = (list: unknown, read: (node: unknown) => ChapterMark | null): ChapterMark[] =>
  asArray(list)
    .map(read)
    .filter((m): m is ChapterMark => m !== null);

/**
 * The chapters a /next answer or a watch page's ytInitialData marks: on the player bar (the 2020
 * `chapteredPlayerBarRenderer`, the later `multiMarkersPlayerBarRenderer` markers map by kind),
 * else in the chapters panels. Empty lists where it marks none.
 */
export function chaptersFromNext(initialData: unknown): PageChapters {
  const bar: PageChapters = { uploader: [], automatic: [] };
  const overlays = dig(initialData, 'playerOverlays');
  for (const legacy of findAll(overlays, 'chapteredPlayerBarRenderer')) {
    if (bar.uploader.length === 0) bar.uploader = marks(dig(legacy, 'chapters'), barMark);
  }
  for (const map of findAll(overlays, 'markersMap')) {
    for (const entry of asArray(map)) {
      const kind = BAR_MARKERS[asString(dig(entry, 'key')) ?? ''];
      if (kind && bar[kind].length === 0) bar[kind] = marks(dig(entry, 'value', 'chapters'), barMark);
    }
  }
  const panel: PageChapters = { uploader: [], automatic: [] };
  for (const node of asArray(dig(initialData, 'engagementPanels'))) {
    const section = dig(node, 'engagementPanelSectionListRenderer');
    if (!isRecord(section)) continue;
    const kind = PANELS[asString(section.panelIdentifier) ?? asString(section.targetId) ?? ''];
    const list = dig(section, 'content', 'macroMarkersListRenderer', 'contents');
    if (kind && panel[kind].length === 0) panel[kind] = marks(list, panelMark);
  }
  return {
    uploader: bar.uploader.length > 0 ? bar.uploader : panel.uploader,
    automatic: bar.automatic.length > 0 ? bar.automatic : panel.automatic,
  };
}

// h:mm:ss or m:ss (minutes may pass 59 without hours: "75:30").
const TIMESTAMP = /^(?:(\d{1,2}):([0-5]\d)|(\d{1,3})):([0-5]\d)$/;

/** "1:02:03", "01:02", "75:30" → ms; null for anything else. */
export function parseTimestamp(text: string): number | null {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return null;
  const [hours, minutes] = m[1] !== undefined ? [Number(m[1]), Number(m[2])] : [0, Number(m[3])];
  return ((hours * 60 + minutes) * 60 + Number(m[4])) * 1000;
}

// A line that begins with a timestamp (after a bullet or inside brackets), then a separator or a
// space, then the title: "0:00 Intro", "[1:02:03] - Part two", "• 12:30 | Q&A". A time anywhere else
// on a line ("doors open at 7:30") does not make it a chapter line.
const CHAPTER_LINE =
  /^[\s>*•·▶►-]*[[(]?((?:\d{1,2}:)?\d{1,3}:\d{2})(?:[\])][\s\-–—:|·.]*|[\s\-–—:|·.]+)(\S.*)$/u;

/**
 * The chapters a description's timestamps make, by the platform's rules: the lines that begin with a
 * timestamp, in order, count only together — the first at 0:00, each later than the one before, at
 * least three. Anything else: []. (The 10-second minimum needs the video's length: toChapters.)
 */
export function descriptionMarks(description: string | null): ChapterMark[] {
  const found: ChapterMark[] = [];
  for (const line of (description ?? '').split(/\r?\n/)) {
    const m = CHAPTER_LINE.exec(line);
    const startMs = m ? parseTimestamp(m[1]!) : null;
    const name = m?.[2]?.trim();
    if (startMs !== null && name) found.push({ title: name, startMs });
  }
  if (found.length < 3 || found[0]!.startMs !== 0) return [];
  for (let i = 1; i < found.length; i++) if (found[i]!.startMs <= found[i - 1]!.startMs) return [];
  return found;
}

/** The platform shows no description chapters if any would be shorter than this. */
export const MIN_CHAPTER_MS = 10_000;

/** Marks closed into chapters: each ends where the next starts, the last at `endMs`. */
function close(list: ChapterMark[], endMs: number): Chapter[] {
  return list.map((m, i) => ({ title: m.title, startMs: m.startMs, endMs: list[i + 1]?.startMs ?? endMs }));
}

/** A page's marks as chapters: the platform drew them, so only what cannot be drawn is dropped. */
export function markedChapters(list: readonly ChapterMark[], endMs: number): Chapter[] {
  const kept: ChapterMark[] = [];
  for (const m of list) {
    if (m.startMs >= endMs) break;
    if (kept.length === 0 || m.startMs > kept[kept.length - 1]!.startMs) kept.push(m);
  }
  return close(kept, endMs);
}

/** A description's chapters, or [] where one would be under 10 s or start past the end. */
export function writtenChapters(description: string | null, endMs: number): Chapter[] {
  const chapters = close(descriptionMarks(description), endMs);
  return chapters.every((c) => c.endMs - c.startMs >= MIN_CHAPTER_MS) ? chapters : [];
}

/**
 * A video's chapters from what its watch page marks (null: the page could not be had) and its
 * description. No length (live, upcoming): [] — there is no end to close the last one with.
 */
export function videoChapters(
  page: PageChapters | null | undefined,
  description: string | null,
  durationSec: number | null,
): Chapter[] {
  if (!durationSec || durationSec <= 0) return [];
  const endMs = durationSec * 1000;
  const uploader = markedChapters(page?.uploader ?? [], endMs);
  if (uploader.length > 0) return uploader;
  const written = writtenChapters(description, endMs);
  if (written.length > 0) return written;
  return markedChapters(page?.automatic ?? [], endMs);
}
