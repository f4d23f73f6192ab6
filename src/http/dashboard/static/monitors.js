// Monitors: the account's monitors (pause, resume, check now, delete), a small form that creates one,
// and one monitor's timeline of events, newest first, paged by cursor, each with its webhook's state.
// A page's diff is drawn line by line as text (diffs carry whatever the watched page wrote).
import { call } from './api.js';
import { $, announce, copyButton, el, fill, fmtInt, fmtTime, showError, table } from './dom.js';

const LIMIT = 50;
const EVENTS_LIMIT = 20;
const REFRESH_MS = 4000;
const TARGET_HINTS = {
  channel: '@handle, channel id or URL',
  playlist: 'playlist id or URL',
  page: 'https://example.com/pricing',
  site: 'https://example.com/',
};

/** The monitors listed, and the cursor past them. */
let monitors = [];
let listNext = null;
/** The monitor whose timeline is open: its id, its events so far and the cursor past them. */
let openId = null;
let events = [];
let eventsNext = null;
let shownEvents = '';
let timer = null;

const visible = () => !document.querySelector('[data-view="monitors"]').hidden;
const labelOf = (m) => m.name || m.target;
const wantedId = () => new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('id');

function link(url, text = url) {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return text ?? '—';
  return el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'url' }, text || url);
}

function statusBadge(m) {
  if (m.status === 'active') return el('span', { class: 'badge monitor-active' }, 'active');
  const why = m.pausedReason === 'credits' ? 'paused: out of credits' : 'paused by you';
  return el('span', { class: 'badge paused', title: why }, why);
}

function schedule(m) {
  return m.timezone ? `${m.every} (${m.timezone})` : m.every;
}

function actions(m) {
  const label = labelOf(m);
  const paused = m.status === 'paused';
  return el(
    'span',
    { class: 'actions' },
    el(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-label': `${paused ? 'Resume' : 'Pause'} monitor ${label}`,
        'data-action': paused ? 'resume' : 'pause',
        onclick: () => void setPaused(m, !paused),
      },
      paused ? 'Resume' : 'Pause',
    ),
    el(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-label': `Check monitor ${label} now`,
        'data-action': 'check',
        onclick: () => void checkNow(m),
      },
      'Check now',
    ),
    el(
      'button',
      {
        type: 'button',
        class: 'danger small',
        'aria-label': `Delete monitor ${label}`,
        'data-action': 'delete',
        onclick: () => void remove(m),
      },
      'Delete',
    ),
  );
}

function renderList() {
  // A refresh redraws the table: the button that had focus gets it back.
  const focused = document.activeElement?.closest?.('#monitor-table') ? document.activeElement : null;
  const focusLabel = focused?.getAttribute('aria-label') ?? focused?.textContent;
  if (!monitors.length) {
    fill($('monitor-table'), el('p', { class: 'hint' }, 'No monitors yet: create one above.'));
  } else {
    fill(
      $('monitor-table'),
      table(
        'Monitors of this account',
        [
          'Monitor',
          'Kind',
          'Status',
          'Every',
          { label: 'Checks', num: true },
          { label: 'Events', num: true },
          'Last check',
          'Next check',
          'Actions',
        ],
        monitors.map((m) => [
          el(
            'a',
            {
              href: `#/monitors?id=${encodeURIComponent(m.id)}`,
              class: 'monitor-link',
              title: m.target,
              'aria-current': m.id === openId ? 'true' : undefined,
              onclick: (e) => openFromList(e, m.id),
            },
            labelOf(m),
          ),
          el('span', { class: 'kind' }, m.kind),
          statusBadge(m),
          el('code', {}, schedule(m)),
          fmtInt(m.checks),
          fmtInt(m.events),
          fmtTime(m.lastCheckAt),
          m.status === 'paused' ? '—' : fmtTime(m.nextCheckAt),
          actions(m),
        ]),
      ),
    );
  }
  $('monitors-more').hidden = !listNext;
  if (focusLabel) {
    const again = [...$('monitor-table').querySelectorAll('a, button')].find(
      (n) => (n.getAttribute('aria-label') ?? n.textContent) === focusLabel,
    );
    again?.focus();
  }
}

async function loadList() {
  // A refresh keeps as many monitors listed as were (up to the API's page size).
  const limit = Math.min(100, Math.max(LIMIT, monitors.length));
  const res = await call('GET', '/v1/monitors', { query: { limit } });
  const beyond = monitors.length > res.monitors.length && res.next ? monitors.slice(res.monitors.length) : [];
  monitors = [...res.monitors, ...beyond.filter((m) => !res.monitors.some((r) => r.id === m.id))];
  if (!beyond.length) listNext = res.next;
  renderList();
}

async function moreMonitors() {
  if (!listNext) return;
  const res = await call('GET', '/v1/monitors', { query: { limit: LIMIT, cursor: listNext } });
  monitors.push(...res.monitors.filter((m) => !monitors.some((k) => k.id === m.id)));
  listNext = res.next;
  renderList();
}

async function setPaused(m, paused) {
  showError('monitors-error', null);
  try {
    await call('PATCH', `/v1/monitors/${encodeURIComponent(m.id)}`, { body: { paused } });
    announce(`Monitor ${labelOf(m)} ${paused ? 'paused' : 'resumed'}.`);
  } catch (err) {
    showError('monitors-error', err);
  }
  await reload({ quiet: true });
}

async function checkNow(m) {
  showError('monitors-error', null);
  try {
    const accepted = await call('POST', `/v1/monitors/${encodeURIComponent(m.id)}/check`);
    announce(`Checking ${labelOf(m)} now (job ${accepted.jobId}).`);
    $('monitors-status').textContent = `Check of ${labelOf(m)} started: job ${accepted.jobId}.`;
  } catch (err) {
    showError('monitors-error', err);
  }
  await reload({ quiet: true });
}

async function remove(m) {
  if (
    !window.confirm(
      `Delete the monitor "${labelOf(m)}"? It stops checking, and its events are deleted with it.`,
    )
  )
    return;
  showError('monitors-error', null);
  try {
    await call('DELETE', `/v1/monitors/${encodeURIComponent(m.id)}`);
    announce(`Monitor ${labelOf(m)} deleted.`);
    monitors = monitors.filter((k) => k.id !== m.id);
    if (openId === m.id) {
      history.replaceState(null, '', '#/monitors');
      closeDetail();
    }
  } catch (err) {
    showError('monitors-error', err);
  }
  await reload({ quiet: true });
}

// ---------------------------------------------------------------------------------------------------
// The create form

function kindChanged() {
  const kind = $('monitor-kind').value;
  $('monitor-target').placeholder = TARGET_HINTS[kind] ?? '';
  $('monitor-site-row').hidden = kind !== 'site';
}

async function create(e) {
  e.preventDefault();
  const kind = $('monitor-kind').value;
  const target = $('monitor-target').value.trim();
  const every = $('monitor-every').value.trim();
  const name = $('monitor-name').value.trim();
  const webhookUrl = $('monitor-webhook').value.trim();
  if (!target || !every) {
    showError('monitor-error', target ? 'Say how often to check it, e.g. 1h.' : 'Say what to watch.');
    $(target ? 'monitor-every' : 'monitor-target').focus();
    return;
  }
  const body = { kind, target, every };
  if (name) body.name = name;
  if (webhookUrl) body.webhookUrl = webhookUrl;
  if (kind === 'site') {
    const pages = $('monitor-site-pages').value;
    if (pages !== 'map') body.scrape = true;
    if (pages === 'diff') body.diff = true;
  }
  showError('monitor-error', null);
  const button = e.currentTarget.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const created = await call('POST', '/v1/monitors', { body });
    $('monitor-target').value = '';
    $('monitor-name').value = '';
    announce(`Monitor ${labelOf(created)} created; its first check sets the baseline.`);
    history.replaceState(null, '', `#/monitors?id=${encodeURIComponent(created.id)}`);
    await reload({ focusDetail: true });
  } catch (err) {
    showError('monitor-error', err);
  } finally {
    button.disabled = false;
  }
}

// ---------------------------------------------------------------------------------------------------
// One monitor: its fields, last checks and timeline

function closeDetail() {
  openId = null;
  events = [];
  eventsNext = null;
  shownEvents = '';
  $('monitor-detail').hidden = true;
}

function openFromList(event, id) {
  event.preventDefault();
  history.replaceState(null, '', `#/monitors?id=${encodeURIComponent(id)}`);
  void reload({ focusDetail: true });
}

function detailFields(m) {
  const pairs = [
    ['Monitor id', el('code', {}, m.id)],
    ['Kind', el('span', { class: 'kind' }, m.kind)],
    ['Target', link(m.target)],
    ['Status', statusBadge(m)],
    ['Every', el('code', {}, schedule(m))],
    [
      'Webhook',
      m.webhookUrl ? el('code', {}, m.webhookUrl) : 'none (events are listed here and in the feed)',
    ],
    ['Checks', fmtInt(m.checks)],
    ['Events', fmtInt(m.events)],
    ['Last check', fmtTime(m.lastCheckAt)],
    ['Next check', m.status === 'paused' ? 'none while paused' : fmtTime(m.nextCheckAt)],
    ['Created', fmtTime(m.createdAt)],
  ];
  if (m.kind === 'site')
    pairs.push([
      'Pages',
      `at most ${fmtInt(m.limit ?? 100)}${m.scrape ? `, scraped${m.diff ? ' with diffs' : ''}` : ', mapped only'}`,
    ]);
  return pairs.flatMap(([label, value]) => [el('dt', {}, label), el('dd', {}, value)]);
}

function checksTable(checks) {
  if (!checks?.length) return el('p', { class: 'hint' }, 'No checks yet.');
  return table(
    'Last checks of this monitor',
    ['Job', 'Status', 'Started', 'Finished', { label: 'Credits', num: true }, 'Error'],
    checks.map((c) => [
      el('a', { href: `#/jobs?id=${encodeURIComponent(c.jobId)}` }, c.jobId),
      el('span', { class: `badge ${c.status}` }, c.status),
      fmtTime(c.createdAt),
      fmtTime(c.completedAt),
      c.cost === null ? '—' : fmtInt(c.cost),
      c.error ?? '',
    ]),
  );
}

/** A unified diff as one line each, coloured by its first character; text only, never markup. */
export function diffView(diff) {
  const lines = String(diff ?? '').split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return el(
    'div',
    {
      class: 'diff',
      'data-testid': 'diff',
      role: 'group',
      'aria-label': 'Changes (lines starting with + were added, - removed)',
    },
    lines.map((line) => {
      const kind = /^(\+\+\+|---)( |$)/.test(line)
        ? 'diff-file'
        : line.startsWith('@@')
          ? 'diff-hunk'
          : line.startsWith('+')
            ? 'diff-add'
            : line.startsWith('-')
              ? 'diff-del'
              : 'diff-ctx';
      return el('div', { class: kind }, line || ' ');
    }),
  );
}

const str = (v) => (typeof v === 'string' && v ? v : null);
const list = (v) => (Array.isArray(v) ? v : []);
const plural = (n, one, many = `${one}s`) => `${fmtInt(n)} ${n === 1 ? one : many}`;

function urlList(title, urls) {
  if (!urls.length) return null;
  return el(
    'details',
    {},
    el('summary', {}, `${title} (${fmtInt(urls.length)})`),
    el(
      'ul',
      { class: 'url-list' },
      urls.map((u) => el('li', {}, link(typeof u === 'string' ? u : u?.url))),
    ),
  );
}

function sectionNames(sections) {
  const names = list(sections).map((s) => (typeof s?.section === 'string' ? s.section : ''));
  if (!names.length) return null;
  return el(
    'p',
    { class: 'sections', 'data-testid': 'sections' },
    el('span', { class: 'hint' }, names.length === 1 ? 'Section: ' : 'Sections: '),
    names.flatMap((n, i) => [i ? ', ' : '', el('strong', {}, n || '(top of the page)')]),
  );
}

/** What an event says, in a line, and what it carries below that line. */
function describe(e) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'video.new': {
      const video = d.video ?? {};
      const t = d.transcript;
      const transcript =
        t && typeof t === 'object'
          ? str(t.content)
            ? el(
                'details',
                {},
                el(
                  'summary',
                  {},
                  `Transcript (${t.source ?? 'attached'}, ${fmtInt(t.content.length)} characters)`,
                ),
                el('pre', { class: 'code' }, t.content),
              )
            : el(
                'p',
                { class: 'hint' },
                `No transcript: ${str(t.message) ?? str(t.error) ?? 'none available'}`,
              )
          : null;
      return {
        line: [
          'New video: ',
          link(str(d.url), str(video.title) ?? str(d.videoId) ?? str(d.url) ?? '(untitled)'),
        ],
        body: [transcript],
      };
    }
    case 'page.changed':
      return {
        line: [
          'Page changed: ',
          link(str(d.url), str(d.title) ?? str(d.url) ?? 'the page'),
          el(
            'span',
            { class: 'hint' },
            ` · ${plural(Number(d.added ?? 0), 'line')} added, ${fmtInt(Number(d.removed ?? 0))} removed`,
          ),
        ],
        body: [sectionNames(d.sections), str(d.diff) && diffView(d.diff)],
      };
    case 'page.gone':
      return {
        line: [
          'Page gone: ',
          link(str(d.url), str(d.title) ?? str(d.url) ?? 'the page'),
          ' answers 404 or 410',
        ],
      };
    case 'page.back':
      return {
        line: ['Page back: ', link(str(d.url), str(d.title) ?? str(d.url) ?? 'the page'), ' answers again'],
      };
    case 'site.changed': {
      const added = list(d.added);
      const removed = list(d.removed);
      const changed = list(d.changed);
      const parts = [`${plural(added.length, 'page')} added`, `${fmtInt(removed.length)} removed`];
      if (Array.isArray(d.changed)) parts.push(`${fmtInt(changed.length)} changed`);
      return {
        line: ['Site changed: ', parts.join(', ')],
        body: [
          urlList('Added', added),
          urlList('Removed', removed),
          changed.length
            ? el(
                'details',
                {},
                el('summary', {}, `Changed (${fmtInt(changed.length)})`),
                el(
                  'ul',
                  { class: 'url-list' },
                  changed.map((c) =>
                    el(
                      'li',
                      {},
                      link(str(c?.url)),
                      sectionNames(c?.sections),
                      str(c?.diff) && diffView(c.diff),
                    ),
                  ),
                ),
              )
            : null,
        ],
      };
    }
    case 'check.failed':
      return {
        line: [
          'Check failed: ',
          str(d.message) ?? 'the check failed',
          str(d.error) ? el('span', { class: 'hint' }, ` (${d.error})`) : '',
        ],
      };
    case 'monitor.paused':
      return { line: [d.reason === 'credits' ? 'Paused: the account ran out of credits' : 'Paused by you'] };
    case 'monitor.resumed':
      return { line: [d.reason === 'credits' ? 'Resumed: credits are available again' : 'Resumed by you'] };
    default:
      return { line: [e.type], body: [el('pre', { class: 'code' }, JSON.stringify(d, null, 2))] };
  }
}

function deliveryState(delivery) {
  if (!delivery) return null;
  const tries = plural(delivery.attempts, 'attempt');
  if (delivery.status === 'delivered')
    return el('span', { class: 'delivery delivered' }, `Webhook delivered ${fmtTime(delivery.deliveredAt)}`);
  if (delivery.status === 'pending')
    return el(
      'span',
      { class: 'delivery pending' },
      delivery.attempts ? `Webhook pending (${tries} so far)` : 'Webhook pending',
    );
  const why = [delivery.lastStatus ? `HTTP ${delivery.lastStatus}` : null, delivery.lastError].filter(
    Boolean,
  );
  return el(
    'span',
    { class: 'delivery failed' },
    `Webhook failed after ${tries}${why.length ? `: ${why.join(', ')}` : ''}`,
  );
}

function eventItem(e) {
  const { line, body = [] } = describe(e);
  return el(
    'li',
    { class: `event ${e.type.replace(/[^a-z.]/g, '').replace('.', '-')}`, 'data-type': e.type },
    el(
      'div',
      { class: 'event-head' },
      el('time', { datetime: new Date(e.createdAt).toISOString() }, fmtTime(e.createdAt)),
      el('span', { class: 'badge event-type' }, e.type),
      el('span', { class: 'event-line' }, line),
    ),
    el(
      'div',
      { class: 'event-meta hint' },
      deliveryState(e.delivery),
      e.jobId ? el('a', { href: `#/jobs?id=${encodeURIComponent(e.jobId)}` }, `check ${e.jobId}`) : null,
    ),
    body,
  );
}

function renderEvents() {
  // Redrawn only when something changed, so open details and the reader's place are kept.
  const key = JSON.stringify([events, eventsNext]);
  if (key === shownEvents) return;
  shownEvents = key;
  fill(
    $('monitor-events'),
    events.length
      ? events.map(eventItem)
      : el(
          'li',
          { class: 'hint' },
          'No events yet: the first check sets the baseline, later ones report what changed.',
        ),
  );
  $('monitor-events-more').hidden = !eventsNext;
}

async function openMonitor(id, { focus = false } = {}) {
  const fresh = openId !== id;
  if (fresh) {
    openId = id;
    events = [];
    eventsNext = null;
    shownEvents = '';
  }
  const path = `/v1/monitors/${encodeURIComponent(id)}`;
  const [m, page] = await Promise.all([
    call('GET', path),
    call('GET', `${path}/events`, { query: { limit: EVENTS_LIMIT } }),
  ]);
  if (openId !== id) return;
  $('monitor-detail-title').textContent = `Monitor: ${labelOf(m)}`;
  fill($('monitor-fields'), detailFields(m));
  $('monitor-feed').value = m.feedUrl;
  fill($('monitor-checks'), checksTable(m.lastChecks));
  const known = new Set(events.map((e) => e.id));
  // A first look, or more new events than a page since the last (no overlap): start from the top.
  if (fresh || (page.next && !page.events.some((e) => known.has(e.id)))) {
    events = page.events;
    eventsNext = page.next;
  } else {
    // Newer events go on top; the ones already listed are updated (a webhook delivered since).
    const latest = new Map(page.events.map((e) => [e.id, e]));
    events = [...page.events.filter((e) => !known.has(e.id)), ...events.map((e) => latest.get(e.id) ?? e)];
    if (!known.size) eventsNext = page.next;
  }
  renderEvents();
  $('monitor-detail').hidden = false;
  if (focus) $('monitor-detail-title').focus();
}

async function moreEvents() {
  if (!openId || !eventsNext) return;
  const id = openId;
  const button = $('monitor-events-more');
  button.disabled = true;
  try {
    const page = await call('GET', `/v1/monitors/${encodeURIComponent(id)}/events`, {
      query: { limit: EVENTS_LIMIT, cursor: eventsNext },
    });
    if (openId !== id) return;
    const known = new Set(events.map((e) => e.id));
    events.push(...page.events.filter((e) => !known.has(e.id)));
    eventsNext = page.next;
    renderEvents();
  } catch (err) {
    showError('monitors-error', err);
  } finally {
    button.disabled = false;
  }
}

/** Redraws every REFRESH_MS while the page shows and a monitor is active (checks come on their own). */
function scheduleRefresh(active) {
  clearTimeout(timer);
  timer = null;
  $('monitors-live').textContent = active ? 'Refreshing every few seconds while monitors are active.' : '';
  if (!active) return;
  timer = setTimeout(() => {
    if (visible()) void reload({ quiet: true });
  }, REFRESH_MS);
}

async function reload({ quiet = false, focusDetail = false } = {}) {
  if (!quiet) showError('monitors-error', null);
  try {
    await loadList();
    const id = wantedId();
    if (id) await openMonitor(id, { focus: focusDetail });
    else closeDetail();
    renderList();
    scheduleRefresh(monitors.some((m) => m.status === 'active'));
  } catch (err) {
    if (err.status === 404 && wantedId()) {
      history.replaceState(null, '', '#/monitors');
      closeDetail();
    }
    showError('monitors-error', err);
    scheduleRefresh(false);
  }
}

export const monitorsView = {
  init() {
    $('monitor-form').addEventListener('submit', (e) => void create(e));
    $('monitor-kind').addEventListener('change', kindChanged);
    kindChanged();
    $('monitors-more').addEventListener(
      'click',
      () => void moreMonitors().catch((err) => showError('monitors-error', err)),
    );
    $('monitor-events-more').addEventListener('click', () => void moreEvents());
    $('monitors-refresh').addEventListener('click', () => void reload());
    const copy = copyButton(() => $('monitor-feed').value, 'Copy the feed URL');
    copy.id = 'monitor-feed-copy';
    $('monitor-feed').after(copy);
  },
  show: () => reload(),
};
