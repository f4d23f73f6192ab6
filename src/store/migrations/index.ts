import type { Migration } from 'kysely';
import * as m001 from './001-accounts-and-credits.js';
import * as m002 from './002-jobs.js';
import * as m003 from './003-job-items.js';
import * as m004 from './004-live-dedupe.js';
import * as m005 from './005-drop-dedupe-index.js';
import * as m006 from './006-request-holds.js';
import * as m007 from './007-live-jobs-by-account.js';
import * as m008 from './008-checkout-confirm-token.js';
import * as m009 from './009-history-at-scale.js';
import * as m010 from './010-job-cancel-requests.js';
import * as m011 from './011-hold-entries-by-job.js';
import * as m012 from './012-monitors.js';
import * as m013 from './013-files.js';

/** Every migration, by name; names sort in the order they apply. */
export const migrations: Record<string, Migration> = {
  '001-accounts-and-credits': m001,
  '002-jobs': m002,
  '003-job-items': m003,
  '004-live-dedupe': m004,
  '005-drop-dedupe-index': m005,
  '006-request-holds': m006,
  '007-live-jobs-by-account': m007,
  '008-checkout-confirm-token': m008,
  '009-history-at-scale': m009,
  '010-job-cancel-requests': m010,
  '011-hold-entries-by-job': m011,
  '012-monitors': m012,
  '013-files': m013,
};
