// The media streams of a /player answer (streamingData) → one file to download for speech
// recognition or frames. Only URLs handed out plainly are usable (mobile clients give them); formats
// behind a signature cipher would need the web player's JavaScript. Pure.
import { asArray, asString, isRecord } from './tree.js';

export interface PlayerStream {
  url: string;
  mimeType: string;
  bitrate: number;
  hasVideo: boolean;
  hasAudio: boolean;
  contentLength: number | null;
  durationSec: number | null;
}

const num = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return null;
};

/** The top-level member of a player answer that parseStreams reads. */
export const STREAM_MEMBERS = ['streamingData'] as const;

export function parseStreams(answer: unknown): PlayerStream[] {
  const data = isRecord(answer) && isRecord(answer.streamingData) ? answer.streamingData : {};
  const out: PlayerStream[] = [];
  for (const list of [data.formats, data.adaptiveFormats]) {
    for (const f of asArray(list)) {
      if (!isRecord(f)) continue;
      const url = asString(f.url);
      const mimeType = asString(f.mimeType) ?? '';
      if (!url || f.signatureCipher || f.cipher) continue;
      const codecs = /codecs="([^"]*)"/.exec(mimeType)?.[1] ?? '';
      const isAudioType = mimeType.startsWith('audio/');
      const ms = num(f.approxDurationMs);
      out.push({
        url,
        mimeType,
        bitrate: num(f.bitrate) ?? 0,
        hasVideo: mimeType.startsWith('video/'),
        hasAudio: isAudioType || codecs.includes(','),
        contentLength: num(f.contentLength),
        durationSec: ms === null ? null : ms / 1000,
      });
    }
  }
  return out;
}

/**
 * The stream a media job wants: `audio` — the smallest audio-only stream (m4a first, which every
 * recogniser takes), else a muxed one; `video` — a muxed stream with sound (frames and speech in one
 * file), else the smallest video-only one.
 */
export function pickStream(streams: readonly PlayerStream[], want: 'audio' | 'video'): PlayerStream | null {
  const byRate = [...streams].sort((a, b) => a.bitrate - b.bitrate);
  const audioOnly = byRate.filter((s) => s.hasAudio && !s.hasVideo);
  const muxed = byRate.filter((s) => s.hasAudio && s.hasVideo);
  if (want === 'audio') {
    return audioOnly.find((s) => s.mimeType.startsWith('audio/mp4')) ?? audioOnly[0] ?? muxed[0] ?? null;
  }
  return muxed[muxed.length - 1] ?? byRate.find((s) => s.hasVideo) ?? null;
}
