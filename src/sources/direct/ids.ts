// Direct media file URLs: any http(s) URL whose path ends in a known audio or video extension (the
// content type and a probe confirm it once downloaded). Pure.

const VIDEO = new Set(['mp4', 'webm', 'mov', 'm4v']);
const AUDIO = new Set(['mp3', 'm4a', 'wav', 'ogg', 'oga', 'opus', 'flac', 'aac']);

/** 'video' or 'audio' for a media file URL, null for anything else. */
export function directMediaKind(url: URL): 'video' | 'audio' | null {
  const m = /\.([A-Za-z0-9]{2,4})$/.exec(url.pathname);
  const ext = m?.[1]?.toLowerCase();
  if (!ext) return null;
  if (VIDEO.has(ext)) return 'video';
  if (AUDIO.has(ext)) return 'audio';
  return null;
}
