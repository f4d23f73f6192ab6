// How ffmpeg and ffprobe open a media file: the one file named, through the file protocol only, with
// only the demuxers an ordinary audio or video file needs. A download is bytes a stranger chose:
// without this, an HLS playlist whose segments are file:///… URLs (or a concat list, or an image
// sequence) makes ffmpeg read the server's own files, whatever name the download was given.
import path from 'node:path';

/**
 * The demuxers ffmpeg may use (a demuxer answers to any of its names: `mov` is also mp4/m4a/3gp,
 * `matroska` also webm). None of them opens another file or URL; mov's data references (external
 * tracks) are off unless `-enable_drefs 1` is given, which we never do. Not here, so refused: hls,
 * dash, concat, image2 and the image pipes, lavfi, sdp/rtp/rtsp, subtitles, raw elementary streams.
 */
export const MEDIA_DEMUXERS = [
  'mov', // mp4, m4a, mov, 3gp
  'matroska', // mkv, webm
  'mp3',
  'wav',
  'ogg', // vorbis, opus, theora
  'flac',
  'aac', // raw ADTS
  'avi',
  'flv',
  'mpegts',
  'mpeg', // program stream (.mpg, .vob)
  'asf', // wmv, wma
  'aiff',
] as const;

/**
 * The input arguments of every ffmpeg/ffprobe run on media: the allow-lists, then `options` (input
 * options such as `-ss`), then the file as `file:<absolute path>`, so no name can pick another
 * protocol or pass for an option.
 */
export function mediaInput(file: string, options: readonly string[] = []): string[] {
  return [
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    MEDIA_DEMUXERS.join(','),
    ...options,
    '-i',
    `file:${path.resolve(file)}`,
  ];
}

/** True when a tool's stderr says the input's format is not on the allow-list. */
export const refusedFormat = (stderr: string): boolean => stderr.includes('not on whitelist');
