// YouTube's static identity: its name, how lists name it, and which hosts are its own. Pure, so that
// the lists derived from every platform's identity (sources/platform-name.ts) can be read before any
// platform object exists (config.ts).
import { isPlatformHost } from './ids.js';

export const YOUTUBE_IDENTITY = {
  name: 'youtube',
  displayName: 'YouTube',
  accepts: 'youtube.com/youtu.be',
  ownsHost: isPlatformHost,
} as const;
