// The OCR segments in the formats a caller can ask for: json (the segments), text (one line each),
// srt and vtt (subtitle files a player can load). Pure functions.
import type { OcrSegment } from './segments.js';

export const OCR_FORMATS = ['json', 'text', 'srt', 'vtt'] as const;
export type OcrFormat = (typeof OCR_FORMATS)[number];

function clock(ms: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(ms));
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const s = Math.floor((total % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(total % 1000, 3)}`;
}

/** Cue text on one line: no blank line (it would end the cue) and no arrow (it would start one). */
const cueText = (text: string) => text.replace(/\s+/g, ' ').trim().replace(/-->/g, '->');

export function toSrt(segments: readonly OcrSegment[]): string {
  return segments
    .map((s, i) => `${i + 1}\n${clock(s.startMs, ',')} --> ${clock(s.endMs, ',')}\n${cueText(s.text)}\n`)
    .join('\n');
}

export function toVtt(segments: readonly OcrSegment[]): string {
  const escapeMarkup = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const cues = segments.map(
    (s) => `${clock(s.startMs, '.')} --> ${clock(s.endMs, '.')}\n${escapeMarkup(cueText(s.text))}\n`,
  );
  return ['WEBVTT\n', ...cues].join('\n');
}

export function toText(segments: readonly OcrSegment[]): string {
  return segments.map((s) => cueText(s.text)).join('\n');
}

export function renderSegments(segments: readonly OcrSegment[], format: OcrFormat): string {
  if (format === 'srt') return toSrt(segments);
  if (format === 'vtt') return toVtt(segments);
  if (format === 'text') return toText(segments);
  return JSON.stringify(segments);
}
