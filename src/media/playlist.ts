// Playlists and lists where a media file was expected (HLS, DASH, ffconcat): refused when the download
// starts — by their content type or their first bytes — with a message that says what they are. The
// demuxer allow-list (input.ts) is what keeps ffmpeg from following one; this check makes the answer clear.
import { Transform } from 'node:stream';
import { AppError } from '../errors.js';

const PLAYLIST_TYPES = new Set([
  'application/vnd.apple.mpegurl',
  'application/x-mpegurl',
  'audio/mpegurl',
  'audio/x-mpegurl',
  'application/dash+xml',
  'video/vnd.mpeg.dash.mpd',
]);

/** How many first bytes are looked at: room for a byte-order mark, blank lines and an XML declaration. */
const HEAD_BYTES = 512;

/** `#EXTM3U` (HLS), `ffconcat version` (ffmpeg's concat list), `<MPD` (DASH, after an XML declaration). */
const PLAYLIST_START = /^(?:\xEF\xBB\xBF)?\s*(?:#EXTM3U|ffconcat version|(?:<\?xml[^>]*\?>\s*)?<MPD[\s>])/;

export const isPlaylistType = (contentType: string | null): boolean =>
  contentType !== null && PLAYLIST_TYPES.has(contentType);

/** True when a body's first bytes are those of a playlist or list. Pure. */
export const startsLikePlaylist = (head: Buffer): boolean =>
  PLAYLIST_START.test(head.subarray(0, HEAD_BYTES).toString('latin1'));

export const playlistRefused = () =>
  new AppError(
    'invalid_request',
    "Invalid parameter 'url': it serves a playlist (HLS, DASH or ffconcat), not a media file; give the URL of one audio or video file",
    'url',
  );

/** Passes a body through unchanged, failing with `playlistRefused()` if it starts like a playlist. */
export function refusePlaylists(): Transform {
  let head = Buffer.alloc(0);
  let judged = false;
  const judge = (): AppError | null => {
    judged = true;
    return startsLikePlaylist(head) ? playlistRefused() : null;
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (!judged) {
        head = Buffer.concat([head, chunk]).subarray(0, HEAD_BYTES);
        if (head.length >= HEAD_BYTES) {
          const err = judge();
          if (err) return done(err);
        }
      }
      done(null, chunk);
    },
    flush(done) {
      done(judged ? null : judge());
    },
  });
}
