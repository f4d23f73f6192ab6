// Facebook's static identity: its name, how lists name it, and which hosts are its own. Pure, so that
// the lists derived from every platform's identity (sources/platform-name.ts) can be read before any
// platform object exists (config.ts).
import { isFacebookHost } from './ids.js';

export const FACEBOOK_IDENTITY = {
  name: 'facebook',
  displayName: 'Facebook',
  accepts: 'facebook.com/fb.watch',
  ownsHost: isFacebookHost,
} as const;
