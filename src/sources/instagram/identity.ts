// Instagram's static identity: its name, how lists name it, and which hosts are its own. Pure, so that
// the lists derived from every platform's identity (sources/platform-name.ts) can be read before any
// platform object exists (config.ts).
import { isInstagramHost } from './ids.js';

export const INSTAGRAM_IDENTITY = {
  name: 'instagram',
  displayName: 'Instagram',
  accepts: 'instagram.com',
  ownsHost: isInstagramHost,
} as const;
