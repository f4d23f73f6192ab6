// X's static identity: its name, how lists name it, and which hosts are its own. Pure, so that the
// lists derived from every platform's identity (sources/platform-name.ts) can be read before any
// platform object exists (config.ts).
import { isXHost } from './ids.js';

export const X_IDENTITY = {
  name: 'x',
  displayName: 'X',
  accepts: 'x.com/twitter.com',
  ownsHost: isXHost,
} as const;
