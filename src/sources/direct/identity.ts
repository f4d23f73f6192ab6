// Direct media files' static identity: the name and how lists name them. A file URL may be on any
// host, so no host is their own (and no cookies are theirs).
export const DIRECT_IDENTITY = {
  name: 'direct',
  displayName: 'a direct media file (.mp4 .webm .mp3 .m4a .wav .ogg .flac)',
  accepts: 'direct .mp4 .webm .mp3 .m4a .wav .ogg .flac files',
  ownsHost: null,
} as const;
