// Activity: the account's credit history as a user thinks of it — one row per request or job (its
// hold, release and settlement folded together), one per purchase or grant — on the overview (the
// latest) and on its own page (#/activity), paged back through GET /v1/account/usage's cursors.
import { call } from './api.js';
import { $, el, fill, fmtInt, fmtTime, showError, table } from './dom.js';

/** The route each synchronous operation is answered at (usage rows keep the operation, not the URL). */
const ENDPOINTS = {
  scrape: 'GET /v1/web/scrape',
  map: 'GET /v1/web/map',
  metadata: 'GET /v1/metadata',
  transcript: 'GET /v1/transcript',
  translate: 'GET /v1/vidsite/transcript/translate',
  video: 'GET /v1/vidsite/video',
  channel: 'GET /v1/vidsite/channel',
  channel_videos: 'GET /v1/vidsite/channel/videos',
  playlist: 'GET /v1/vidsite/playlist',
  playlist_videos: 'GET /v1/vidsite/playlist/videos',
  comments: 'GET /v1/vidsite/comments',
  search: 'GET /v1/vidsite/search',
  microblog: 'GET /v1/microblog/post',
};

/** The request's route, from its operation; null when unknown. Pure. */
export function endpointOf(operation) {
  return ENDPOINTS[operation] ?? null;
}

/**
 * One entry per request or job (its hold, release and settlement are one thing to a user), and one
 * per grant or purchase; newest first. Pure.
 */
export function activity(transactions) {
  const groups = new Map();
  const out = [];
  for (const t of transactions) {
    // Requests (req_) and jobs (job_) hold, release and settle; a purchase (chk_) is one transaction.
    if (!/^(req|job)_/.test(t.job_id ?? '')) {
      out.push({
        id: t.job_id,
        when: t.created_at,
        what: t.description,
        credits: t.amount,
        state: t.type,
        operation: t.operation,
      });
      continue;
    }
    let g = groups.get(t.job_id);
    if (!g) {
      g = { id: t.job_id, when: t.created_at, what: '', credits: 0, types: new Set(), operation: '' };
      groups.set(t.job_id, g);
      out.push(g);
    }
    g.when = Math.min(g.when, t.created_at);
    g.credits += t.amount;
    g.types.add(t.type);
    if (t.operation) g.operation = t.operation;
    if (t.type !== 'release' || !g.what) {
      const what = t.description.replace(/^(Release: )?(Additional )?(hold for )?/i, '');
      g.what = what.charAt(0).toUpperCase() + what.slice(1);
    }
  }
  for (const g of groups.values()) {
    g.state = g.types.has('settled') ? 'charged' : g.types.has('release') ? 'refunded' : 'held';
    delete g.types;
  }
  return out;
}

/** The package a purchase's description names ("Purchase of credits_500"), if it is on sale. Pure. */
export function purchasedPackage(description, packages) {
  const id = /\bPurchase of (\S+)/.exec(description ?? '')?.[1];
  return id ? (packages.find((p) => p.id === id) ?? null) : null;
}

/** "Bought 500 credits ($5.00)" for a purchase; other descriptions as they are. Pure. */
export function describePurchase(description, amount, packages) {
  const pkg = purchasedPackage(description, packages);
  if (pkg) return `Bought ${fmtInt(pkg.credits)} credits ($${pkg.priceUsd})`;
  return `Bought ${fmtInt(amount)} credits`;
}

let packagesCache = null;
/** The packages on sale (public, fetched once per page load); none when the call fails. */
export async function packages() {
  packagesCache ??= call('GET', '/v1/credits/packages', { token: null }).then(
    (r) => r.packages,
    () => {
      packagesCache = null;
      return [];
    },
  );
  return packagesCache;
}

const signed = (n) => (n > 0 ? `+${fmtInt(n)}` : fmtInt(n));

function idCell(id) {
  if (!id) return '—';
  if (id.startsWith('job_')) return el('a', { href: `#/jobs?id=${encodeURIComponent(id)}` }, id);
  if (id.startsWith('chk_')) return el('code', { title: 'The checkout of the purchase' }, id);
  return el('code', { title: 'The X-Request-Id of the request' }, id);
}

function whereCell(a, job) {
  if (job?.url)
    return el('a', { href: job.url, target: '_blank', rel: 'noopener noreferrer', class: 'url' }, job.url);
  const endpoint = a.id?.startsWith('req_') ? endpointOf(a.operation) : null;
  if (endpoint) return el('code', { class: 'endpoint', title: 'The API route called' }, endpoint);
  if (a.id?.startsWith('req_') && a.operation === 'sizing')
    return el('span', { class: 'hint' }, 'sizing a job');
  return '—';
}

/** Jobs by id: those of the latest listing, and any other the rows name (looked up one by one). */
export async function jobsFor(rows, known = new Map()) {
  const missing = [
    ...new Set(rows.map((a) => a.id).filter((id) => id?.startsWith('job_') && !known.has(id))),
  ];
  const found = await Promise.all(
    missing.slice(0, 50).map((id) => call('GET', `/v1/jobs/${encodeURIComponent(id)}`).catch(() => null)),
  );
  for (const job of found) if (job) known.set(job.id, job);
  return known;
}

/** The activity rows as a table. */
export function activityTable(caption, rows, jobs, pkgs) {
  return table(
    caption,
    ['When', 'What', 'URL or endpoint', { label: 'Credits', num: true }, 'State', 'Job, request or checkout'],
    rows.map((a) => {
      const job = a.id ? jobs.get(a.id) : undefined;
      const what =
        a.state === 'purchase'
          ? describePurchase(a.what, a.credits, pkgs)
          : job && !a.what.toLowerCase().includes(job.queue)
            ? `${a.what} (${job.queue})`
            : a.what;
      return [fmtTime(a.when), what, whereCell(a, job), signed(a.credits), a.state, idCell(a.id)];
    }),
  );
}

// The activity page: pages of transactions followed by cursor, folded together as they arrive.
const PAGE = 100;
let loaded = [];
let next = null;
let total = 0;
let jobs = new Map();

async function render() {
  const rows = activity(loaded);
  const [pkgs] = await Promise.all([packages(), jobsFor(rows, jobs)]);
  fill(
    $('activity-table'),
    rows.length
      ? activityTable('Requests, jobs and purchases, newest first', rows, jobs, pkgs)
      : el('p', { class: 'hint' }, 'No activity yet.'),
  );
  $('activity-count').textContent =
    `${fmtInt(rows.length)} entr${rows.length === 1 ? 'y' : 'ies'} from the latest ${fmtInt(loaded.length)} of ${fmtInt(total)} transactions.`;
  $('activity-more').hidden = !next;
}

async function loadPage(first) {
  showError('activity-error', null);
  const button = $('activity-more');
  button.disabled = true;
  try {
    const page = await call('GET', '/v1/account/usage', {
      query: { limit: PAGE, cursor: first ? undefined : next },
    });
    if (first) {
      loaded = [];
      jobs = new Map();
    }
    loaded.push(...page.transactions);
    next = page.next;
    total = page.total;
    await render();
  } catch (err) {
    showError('activity-error', err);
  } finally {
    button.disabled = false;
  }
}

export const activityView = {
  init() {
    $('activity-more').addEventListener('click', () => void loadPage(false));
  },
  show: () => loadPage(true),
};
