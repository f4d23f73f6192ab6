// Merging the readings of one frame (its four images, or two stacks of the same text) into one set of
// lines. Where lines of two readings cover the same place they are merged word by word: each image
// misses or misreads different words (the gray image drops the trailing "17" that a mask reads, a
// mask reads "LO" where another reads "10"), so each word keeps its best-supported reading.
import type { OcrLine, OcrWord } from './tesseract.js';

/** A line (and its words) in frame coordinates: boxes divided by `scale`, moved down by `dy`. */
export function placeLine(line: OcrLine, scale: number, dy = 0): OcrLine {
  if (scale === 1 && dy === 0) return line;
  const place = <T extends OcrWord>(box: T): T => ({
    ...box,
    left: Math.round(box.left / scale),
    top: Math.round(box.top / scale) + dy,
    width: Math.round(box.width / scale),
    height: Math.round(box.height / scale),
  });
  return { ...place(line), words: line.words?.map(place) };
}

function overlapShare(a: OcrWord, b: OcrWord): number {
  const w = Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);
  const h = Math.min(a.top + a.height, b.top + b.height) - Math.max(a.top, b.top);
  if (w <= 0 || h <= 0) return 0;
  return (w * h) / Math.max(1, Math.min(a.width * a.height, b.width * b.height));
}

/** How much was read, and how surely: confident characters. */
const weight = (l: OcrLine) => l.conf * (l.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0);

/**
 * Merges the readings of one frame's images: where lines of two readings cover the same place, the
 * one with more confident characters leads and the other's words are merged into it; lines only one
 * reading found are kept; pieces of one line are joined.
 */
export function mergeReadings(
  readings: ReadonlyArray<{ lines: readonly OcrLine[]; scale: number }>,
): OcrLine[] {
  const all = readings.flatMap((r) => r.lines.map((l) => placeLine(l, r.scale)));
  all.sort((a, b) => weight(b) - weight(a));
  const kept: OcrLine[] = [];
  for (const line of all) {
    const clash = kept.findIndex((k) => overlapShare(k, line) > 0.15);
    if (clash < 0) {
      kept.push(line);
      continue;
    }
    // Word by word where both readings have their words; else two readings of overlapping stretches
    // of one line ("ORDER NOW: call" and "call 555-0199").
    const merged = mergeWords(kept[clash]!, line) ?? stitch(kept[clash]!, line);
    if (merged) kept[clash] = merged;
  }
  return joinLines(kept);
}

const bareWord = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

const horizontalOverlap = (a: OcrWord, b: OcrWord) =>
  Math.min(a.left + a.width, b.left + b.width) - Math.max(a.left, b.left);

/** Two words whose boxes overlap by this share of the narrower one are readings of the same place. */
const SAME_PLACE = 0.3;

/**
 * `other`'s words merged into `lead`'s (a reading of the same line from another image): a word in
 * the same place is a vote for that place, a word where `lead` has none (in a gap, or past its ends)
 * is added. Each place keeps the text with the most support, counting for a text the readings that
 * are part of it (a reading "ew" supports "New": a letter missed, not a different word). Null when
 * either line has no words.
 */
export function mergeWords(lead: OcrLine, other: OcrLine): OcrLine | null {
  if (!lead.words?.length || !other.words?.length) return null;
  const places = lead.words.map((w) => ({ box: w, votes: [w] }));
  const bottom = lead.top + lead.height;
  for (const w of other.words) {
    const rows = Math.min(bottom, w.top + w.height) - Math.max(lead.top, w.top);
    if (rows < 0.5 * Math.min(lead.height, w.height)) continue;
    const over = places.filter(
      (p) => horizontalOverlap(p.box, w) > SAME_PLACE * Math.min(p.box.width, w.width),
    );
    // Over two of the lead's words ("storer20" over "store" "20"): the line cut differently.
    if (over.length > 1) continue;
    if (over.length === 1) over[0]!.votes.push(w);
    else places.push({ box: w, votes: [w] });
  }
  places.sort((a, b) => a.box.left - b.box.left);
  const words = places.map(({ votes }) => {
    const support = (text: string) =>
      votes.reduce((s, v) => {
        const part = bareWord(v.text);
        return part && bareWord(text).includes(part) ? s + v.conf : s;
      }, 0);
    let best = votes[0]!;
    for (const v of votes) if (support(v.text) > support(best.text)) best = v;
    return best;
  });
  const left = Math.min(...words.map((w) => w.left));
  const right = Math.max(...words.map((w) => w.left + w.width));
  return {
    text: words.map((w) => w.text).join(' '),
    conf: words.reduce((s, w) => s + w.conf, 0) / words.length,
    left,
    top: lead.top,
    width: right - left,
    height: lead.height,
    words,
  };
}

/**
 * Joins two readings of one row that overlap by whole words (the end of the left one is the start of
 * the right one); null when they do not line up like that.
 */
export function stitch(a: OcrLine, b: OcrLine): OcrLine | null {
  const [left, right] = a.left <= b.left ? [a, b] : [b, a];
  if (right.left + right.width <= left.left + left.width) return null;
  const lw = left.text.split(' ');
  const rw = right.text.split(' ');
  for (let k = Math.min(lw.length, rw.length); k >= 1; k--) {
    const tail = lw.slice(-k).map(bareWord).join(' ');
    const head = rw.slice(0, k).map(bareWord).join(' ');
    if (tail && tail === head) {
      const text = [...lw, ...rw.slice(k)].join(' ');
      const top = Math.min(left.top, right.top);
      const bottom = Math.max(left.top + left.height, right.top + right.height);
      return {
        text,
        conf: Math.min(left.conf, right.conf),
        left: left.left,
        top,
        width: right.left + right.width - left.left,
        height: bottom - top,
      };
    }
  }
  return null;
}

/**
 * Pieces of one line that tesseract returned apart (words far apart, or read on different images)
 * are joined left to right: same band of rows, text of about the same height, a gap under six text
 * heights (a word or two left unread between them).
 */
export function joinLines(lines: readonly OcrLine[]): OcrLine[] {
  const sorted = [...lines].sort((a, b) => a.left - b.left);
  const out: OcrLine[] = [];
  for (const line of sorted) {
    const into = out.find((o) => {
      const v = Math.min(o.top + o.height, line.top + line.height) - Math.max(o.top, line.top);
      const gap = line.left - (o.left + o.width);
      const tall = Math.max(o.height, line.height);
      const similarSize = tall <= 2.5 * Math.min(o.height, line.height);
      return v >= 0.5 * Math.min(o.height, line.height) && similarSize && gap <= 6 * tall && gap > -o.width;
    });
    if (!into) {
      out.push({ ...line });
      continue;
    }
    // A piece that overlaps what is already joined is a second reading of the same words: merged
    // word by word where it can be, else left out.
    if (line.left < into.left + into.width - 0.5 * into.height) {
      const merged = mergeWords(into, line);
      if (merged) out[out.indexOf(into)] = merged;
      continue;
    }
    const chars = (l: OcrLine) => Math.max(1, l.text.length);
    into.conf = (into.conf * chars(into) + line.conf * chars(line)) / (chars(into) + chars(line));
    into.text = `${into.text} ${line.text}`;
    into.words = into.words && line.words ? [...into.words, ...line.words] : undefined;
    const right = Math.max(into.left + into.width, line.left + line.width);
    const bottom = Math.max(into.top + into.height, line.top + line.height);
    into.top = Math.min(into.top, line.top);
    into.width = right - into.left;
    into.height = bottom - into.top;
  }
  return out.sort((a, b) => a.top - b.top || a.left - b.left);
}
