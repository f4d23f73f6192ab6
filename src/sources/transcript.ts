// The Transcript shape of the API, shared by every platform: cues become chunks {text, offset,
// duration, lang} (ms), merged up to `chunkSize` characters on sentence, else word, boundaries, or
// one string with `text=true`. Default: the platform's cues unmerged. Given the video's chapters,
// chunks also say which chapter they start in (merging never crosses a chapter's start) and the
// text gets each chapter's title as a heading. Pure.
import { invalid } from '../errors.js';

export interface TranscriptCue {
  text: string;
  offset: number;
  duration: number;
}

export interface TranscriptChunk extends TranscriptCue {
  lang: string;
  /** Only when chapters were asked for: the chapter the chunk starts in (null: none there). */
  chapter?: string | null;
}

/** A part of a video as its platform divides it (ms); the last ends where the video does. */
export interface Chapter {
  title: string;
  startMs: number;
  endMs: number;
}

/** What a platform hands back: cues in ms, the language they are in, the native languages. */
export interface NativeTranscript {
  cues: TranscriptCue[];
  lang: string;
  availableLangs: string[];
}

export interface Transcript {
  content: string | TranscriptChunk[];
  lang: string;
  availableLangs: string[];
}

export interface ShapeOptions {
  text?: boolean;
  /** Most characters per chunk (50–10000); unset: cues as the platform cut them. */
  chunkSize?: number;
  /** The video's chapters, in order: chunks get `chapter`, the text headings. Unset: neither. */
  chapters?: readonly Chapter[];
}

const LANGUAGE_CODE = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/;

/** A language code as the API takes them (en, pt-BR, zh-Hans), else a 400 naming `param`. */
export function checkLanguageCode(code: string, param = 'lang'): string {
  if (code.length > 35 || !LANGUAGE_CODE.test(code)) {
    throw invalid(param, 'a language code such as es, pt-BR or zh-Hans');
  }
  return code;
}

const SENTENCE_END = /[.!?…。！？]["'”’)\]]*$/;

const end = (c: TranscriptCue) => c.offset + c.duration;

/** One cue longer than `size` cut at word boundaries (hard cuts only inside over-long words). */
function splitCue(cue: TranscriptCue, size: number): TranscriptCue[] {
  const pieces: string[] = [];
  let current = '';
  for (const word of cue.text.split(' ')) {
    for (let w = word; w.length > 0; ) {
      const room = current ? size - current.length - 1 : size;
      if (w.length <= room) {
        current = current ? `${current} ${w}` : w;
        w = '';
      } else if (current) {
        pieces.push(current);
        current = '';
      } else {
        pieces.push(w.slice(0, size));
        w = w.slice(size);
      }
    }
  }
  if (current) pieces.push(current);
  // Time shared out in proportion to the characters of each piece.
  const total = pieces.reduce((n, p) => n + p.length, 0) || 1;
  let at = cue.offset;
  return pieces.map((text, i) => {
    const duration =
      i === pieces.length - 1 ? end(cue) - at : Math.round((cue.duration * text.length) / total);
    const piece = { text, offset: at, duration };
    at += duration;
    return piece;
  });
}

function merge(cues: TranscriptCue[]): TranscriptCue {
  const first = cues[0]!;
  const last = Math.max(...cues.map(end));
  return { text: cues.map((c) => c.text).join(' '), offset: first.offset, duration: last - first.offset };
}

/** Cues merged into chunks of at most `size` characters, closed at a sentence end when one is near. */
export function mergeCues(cues: readonly TranscriptCue[], size: number): TranscriptCue[] {
  const out: TranscriptCue[] = [];
  let pending: TranscriptCue[] = [];
  let length = 0;
  const flush = (count: number) => {
    const taken = pending.slice(0, count);
    pending = pending.slice(count);
    length = pending.reduce((n, c, i) => n + c.text.length + (i ? 1 : 0), 0);
    if (taken.length) out.push(merge(taken));
  };
  for (const cue of cues.flatMap((c) => (c.text.length > size ? splitCue(c, size) : [c]))) {
    const added = length === 0 ? cue.text.length : length + 1 + cue.text.length;
    if (added > size) {
      // Close at the last sentence end that keeps the chunk at least half full, else here.
      let cut = pending.length;
      let upto = length;
      for (let i = pending.length - 1; i >= 0; i--) {
        if (SENTENCE_END.test(pending[i]!.text) && upto >= size / 2) {
          cut = i + 1;
          break;
        }
        upto -= pending[i]!.text.length + 1;
      }
      flush(cut);
      // What was carried over plus this cue may still be too long.
      if (length > 0 && length + 1 + cue.text.length > size) flush(pending.length);
    }
    pending.push(cue);
    length = length === 0 ? cue.text.length : length + 1 + cue.text.length;
  }
  flush(pending.length);
  return out;
}

export function shapeTranscript(native: NativeTranscript, options: ShapeOptions = {}): Transcript {
  const { lang, availableLangs } = native;
  if (options.chapters) return shapeByChapter(native, options.chapters, options);
  if (options.text) return { content: native.cues.map((c) => c.text).join(' '), lang, availableLangs };
  const cues = options.chunkSize ? mergeCues(native.cues, options.chunkSize) : native.cues;
  // Each chunk written out: on Node 20's V8 a spread followed by more properties is ~15× slower.
  const content = cues.map((c) => ({ text: c.text, offset: c.offset, duration: c.duration, lang }));
  return { content, lang, availableLangs };
}

/** The index of the chapter a time falls in (the last one started by then), -1 before the first. */
export function chapterAt(chapters: readonly Chapter[], ms: number): number {
  let lo = 0;
  let hi = chapters.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (chapters[mid]!.startMs <= ms) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Runs of consecutive cues that start in the same chapter (title null: before the first chapter). */
function byChapter(cues: readonly TranscriptCue[], chapters: readonly Chapter[]) {
  const runs: Array<{ title: string | null; cues: TranscriptCue[] }> = [];
  let at = -2;
  for (const cue of cues) {
    const index = chapterAt(chapters, cue.offset);
    if (index !== at) {
      runs.push({ title: chapters[index]?.title ?? null, cues: [] });
      at = index;
    }
    runs[runs.length - 1]!.cues.push(cue);
  }
  return runs;
}

function shapeByChapter(
  native: NativeTranscript,
  chapters: readonly Chapter[],
  options: ShapeOptions,
): Transcript {
  const { lang, availableLangs } = native;
  const runs = byChapter(native.cues, chapters);
  if (options.text) {
    // A heading line, then the chapter's text; a blank line between chapters. Cue texts hold no
    // line breaks, so the headings stay recognisable. Text before the first chapter has none.
    const content = runs
      .map((run) => {
        const text = run.cues.map((c) => c.text).join(' ');
        return run.title === null ? text : `${run.title}\n${text}`;
      })
      .join('\n\n');
    return { content, lang, availableLangs };
  }
  const content: TranscriptChunk[] = [];
  for (const run of runs) {
    // Merged within the chapter only, so a chunk's chapter is true of all of its text.
    const cues = options.chunkSize ? mergeCues(run.cues, options.chunkSize) : run.cues;
    for (const c of cues) {
      content.push({ text: c.text, offset: c.offset, duration: c.duration, lang, chapter: run.title });
    }
  }
  return { content, lang, availableLangs };
}
