// A plain media file in the shared post metadata shape: what its server's headers say (type, size,
// last change) and its name. Its length is only known once the file is probed, which this does not
// do: duration is null. Pure.
import { type PostMetadata, videoMedia, wirePlatformName, withType } from '../post-metadata.js';

export interface FileHead {
  contentType: string | null;
  bytes: number | null;
  /** The Last-Modified header, as sent. */
  lastModified: string | null;
  kind: 'video' | 'audio';
}

/** The file name at the end of a URL's path, decoded; null when the path names none. */
export function fileName(url: string): string | null {
  const last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last) || null;
  } catch {
    return last || null;
  }
}

export function fileMetadata(url: string, head: FileHead): PostMetadata {
  const modified = head.lastModified ? Date.parse(head.lastModified) : Number.NaN;
  return withType({
    platform: wirePlatformName('direct'),
    id: url,
    url,
    title: fileName(url),
    description: null,
    author: { username: null, displayName: null, avatarUrl: null, verified: null },
    stats: { views: null, likes: null, comments: null, shares: null },
    // Sound-only files too: the shape has no audio type; additionalData.kind says which.
    media: videoMedia({ url }),
    tags: [],
    createdAt: Number.isFinite(modified) ? new Date(modified).toISOString() : null,
    additionalData: { kind: head.kind, contentType: head.contentType, sizeBytes: head.bytes },
  });
}
