// TikTok's static identity: its name, how lists name it, and which hosts are its own. Pure, so that
// the lists derived from every platform's identity (sources/platform-name.ts) can be read before any
// platform object exists (config.ts).
import { isTikTokHost } from './ids.js';

export const TIKTOK_IDENTITY = {
  name: 'tiktok',
  displayName: 'TikTok',
  accepts: 'tiktok.com',
  ownsHost: isTikTokHost,
} as const;
