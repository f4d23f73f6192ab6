// Jobs: the account's jobs by status, paged, refreshed while any of them runs; one job's summary and
// result: a crawl's (a job whose paged poll answer carries pages) as its pages (a Markdown preview
// each, downloads as JSON or Markdown), any other kind's as its poll answer. A queued or running job
// can be cancelled (POST /v1/jobs/{id}/cancel).
import { call } from './api.js';
import { $, announce, el, fill, fmtDuration, fmtInt, fmtTime, showError, table } from './dom.js';
import { download, renderMarkdown } from './markdown.js';
import { pageFileName, zipFiles } from './zip.js';

const LIMIT = 20;
const REFRESH_MS = 2000;
// Each kind's own poll route, which carries what the summary leaves out (crawl pages, batch items,
// transcripts): read from /openapi.json, where each poll operation names the job kinds it answers
// (`x-job-kinds`) and whether its answer is a slice of the job's items (`x-paged`).
let pollRoutes = null;
function pollRoutesOnce() {
  if (!pollRoutes) {
    pollRoutes = call('GET', '/openapi.json', { token: null }).then((doc) => {
      const byKind = {};
      for (const [path, ops] of Object.entries(doc?.paths ?? {})) {
        const op = ops?.get;
        for (const kind of op?.['x-job-kinds'] ?? []) {
          byKind[kind] = { prefix: path.replace('{jobId}', ''), paged: op['x-paged'] === true };
        }
      }
      return byKind;
    });
    // A failed read is tried again next time.
    pollRoutes.catch(() => {
      pollRoutes = null;
    });
  }
  return pollRoutes;
}
const RUNNING = new Set(['queued', 'active']);
let offset = 0;
let total = 0;
let timer = null;
/** The job shown in the detail panel. */
let openId = null;

const visible = () => !document.querySelector('[data-view="jobs"]').hidden;

/** Refreshes the list (and the open job) every REFRESH_MS while something runs and the page shows. */
function scheduleRefresh(running) {
  clearTimeout(timer);
  timer = null;
  $('jobs-live').textContent = running ? 'Refreshing every 2 s while jobs run.' : '';
  if (!running) return;
  timer = setTimeout(() => {
    if (!visible()) return;
    void reload({ quiet: true });
  }, REFRESH_MS);
}

function urlCell(url) {
  if (!url) return '—';
  const shown = url.length > 60 ? `${url.slice(0, 57)}…` : url;
  return el(
    'a',
    { href: url, target: '_blank', rel: 'noopener noreferrer', title: url, class: 'url' },
    shown,
  );
}

const live = (status) => status === 'queued' || status === 'active';

/** While a job runs its credits are only held (the most it may cost), so say so: not the charge. */
function creditsCell(job) {
  if (!live(job.status)) return fmtInt(job.credits);
  return el(
    'span',
    {
      class: 'held',
      title: 'Held while the job runs: the most it may cost. It is charged what it used when it ends.',
    },
    `up to ${fmtInt(job.credits)} (held)`,
  );
}

/** The job's summary fields, named and formatted for people (the list's units). Pure but for el(). */
const FIELD_LABELS = {
  id: 'Job id',
  queue: 'Kind',
  url: 'URL',
  status: 'Status',
  createdAt: 'Created',
  completedAt: 'Finished',
  durationMs: 'Duration',
  error: 'Error',
  attempts: 'Attempts',
};
const humanize = (key) => {
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export function jobFields(job, extra = {}) {
  const out = [];
  const running = live(job.status);
  for (const [k, v] of Object.entries(job)) {
    if (k === 'maxAttempts') continue;
    let label = FIELD_LABELS[k] ?? humanize(k);
    let value;
    if (k === 'id') value = el('code', {}, v);
    else if (k === 'queue') value = el('span', { class: 'kind' }, v);
    else if (k === 'url') value = v ? urlCell(v) : '—';
    else if (k === 'status') value = el('span', { class: `badge ${v}` }, v);
    else if (/At$/.test(k))
      value = v === null ? (k === 'completedAt' && running ? 'not yet' : '—') : fmtTime(v);
    else if (k === 'durationMs') value = v === null ? (running ? 'still running' : '—') : fmtDuration(v);
    else if (k === 'attempts')
      value = job.maxAttempts ? `${fmtInt(v)} of at most ${fmtInt(job.maxAttempts)}` : fmtInt(v);
    else if (k === 'credits') {
      label = running ? 'Credits held' : 'Credits charged';
      value = running
        ? `up to ${fmtInt(v)} held while it runs (it is charged what it used when it ends)`
        : fmtInt(v);
    } else if (k === 'error' && v === null) continue;
    else value = v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    out.push([label, value, k]);
  }
  for (const [label, value] of Object.entries(extra)) out.push([label, value, label]);
  return out.flatMap(([label, value, key]) => [el('dt', {}, label), el('dd', { 'data-field': key }, value)]);
}

/** Cancels a job after asking; a crawl keeps (and is billed for) the pages it has. */
async function cancelJob(id) {
  if (
    !window.confirm(
      `Cancel job ${id}? It stops within a second or two; work it already did is kept and billed.`,
    )
  )
    return;
  showError('jobs-error', null);
  try {
    const job = await call('POST', `/v1/jobs/${encodeURIComponent(id)}/cancel`);
    announce(
      job.status === 'cancelled'
        ? `Job ${id} cancelled; ${fmtInt(job.credits)} credits charged.`
        : `Job ${id} is stopping.`,
    );
  } catch (err) {
    showError('jobs-error', err);
  }
  await reload({ quiet: true });
}

async function load() {
  const status = $('jobs-status').value;
  const res = await call('GET', '/v1/jobs', { query: { status, limit: LIMIT, offset } });
  total = res.total;
  if (!res.jobs.length) {
    fill($('jobs-table'), el('p', { class: 'hint' }, status ? `No ${status} jobs.` : 'No jobs yet.'));
  } else {
    fill(
      $('jobs-table'),
      table(
        'Jobs of this account',
        ['Job', 'Kind', 'URL', 'Status', 'Created', 'Duration', { label: 'Credits', num: true }, 'Error'],
        res.jobs.map((j) => [
          el(
            'a',
            { href: `#/jobs?id=${encodeURIComponent(j.id)}`, onclick: (e) => openFromList(e, j.id) },
            j.id,
          ),
          el('span', { class: 'kind' }, j.queue),
          urlCell(j.url),
          [
            el('span', { class: `badge ${j.status}` }, j.status),
            live(j.status) &&
              el(
                'button',
                {
                  type: 'button',
                  class: 'danger small',
                  'aria-label': `Cancel job ${j.id}`,
                  onclick: () => void cancelJob(j.id),
                },
                'Cancel',
              ),
          ],
          fmtTime(j.createdAt),
          fmtDuration(j.durationMs),
          creditsCell(j),
          j.error ?? '',
        ]),
      ),
    );
  }
  const pages = Math.max(1, Math.ceil(total / LIMIT));
  $('jobs-page').textContent = `Page ${Math.floor(offset / LIMIT) + 1} of ${pages} (${fmtInt(total)} jobs)`;
  $('jobs-prev').disabled = offset === 0;
  $('jobs-next').disabled = offset + LIMIT >= total;
  return res.jobs.some((j) => RUNNING.has(j.status));
}

function openFromList(event, id) {
  event.preventDefault();
  history.replaceState(null, '', `#/jobs?id=${encodeURIComponent(id)}`);
  void openJob(id, { focus: true });
}

/**
 * Every page of a job whose paged poll answer carries pages (a crawl's), following `next` (an answer
 * carries at most 100 at a time); null when its answers carry no `pages` (a batch's results).
 */
async function jobPages(pollPath) {
  const pages = [];
  let answer;
  for (let skip = 0; pages.length < 5000; ) {
    answer = await call('GET', pollPath, { query: { skip } });
    if (!Array.isArray(answer?.pages)) return null;
    pages.push(...answer.pages);
    if (!answer.next || answer.pages.length === 0) break;
    skip = pages.length;
  }
  return { answer, pages };
}

/** The order the crawl's pages are listed in: by URL unless asked for the crawl's own. */
let crawlOrder = 'url';
const byUrl = (a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);

function crawlView(jobId, answer, pages) {
  const list = el('ol', { class: 'crawl-pages', 'data-testid': 'crawl-pages' });
  const order = el(
    'select',
    { id: 'crawl-order' },
    el('option', { value: 'url', selected: crawlOrder === 'url' }, 'By URL'),
    el('option', { value: 'crawl', selected: crawlOrder === 'crawl' }, 'In crawl order'),
  );
  const renderList = () => {
    const shown = crawlOrder === 'url' ? [...pages].sort(byUrl) : pages;
    fill(list, shown.map(pageItem));
  };
  order.addEventListener('change', () => {
    crawlOrder = order.value;
    renderList();
  });
  renderList();
  return crawlParts(jobId, answer, pages, order, list);
}

function pageItem(p) {
  return el(
    'li',
    {},
    el(
      'details',
      {},
      el(
        'summary',
        {},
        el('strong', {}, p.name || '(untitled)'),
        ' ',
        el('span', { class: 'hint' }, `${p.url} · ${fmtInt(p.countCharacters)} characters`),
      ),
      renderMarkdown(p.content),
    ),
  );
}

function crawlParts(jobId, answer, pages, order, list) {
  const failures = answer.failures?.length
    ? el(
        'p',
        { class: 'hint' },
        `${answer.failures.length} page(s) failed: `,
        answer.failures.map((f) => f.url).join(', '),
      )
    : null;
  const withFrontMatter = (p) =>
    `---\nurl: ${p.url}\ntitle: ${JSON.stringify(p.name ?? '')}\n---\n\n${p.content.trim()}\n`;
  const markdownZip = () => {
    const startHost = pages[0] ? new URL(pages[0].url).host : '';
    const used = new Set();
    const files = pages.map((p) => {
      let name = pageFileName(p.url, startHost);
      for (let n = 2; used.has(name); n++) name = name.replace(/(-\d+)?\.md$/, `-${n}.md`);
      used.add(name);
      return { name, text: withFrontMatter(p) };
    });
    return zipFiles(files);
  };
  return [
    el(
      'div',
      { class: 'row' },
      el('span', {}, `${fmtInt(pages.length)} page(s), status ${answer.status}`),
      el(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          onclick: () => download(`${jobId}.json`, JSON.stringify(pages, null, 2), 'application/json'),
        },
        'Download JSON',
      ),
      el(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          onclick: () => download(`${jobId}.zip`, markdownZip()),
        },
        'Download Markdown (.zip)',
      ),
    ),
    pages.length > 1 &&
      el('div', { class: 'row' }, el('label', { for: 'crawl-order', class: 'inline' }, 'Order'), order),
    failures,
    list,
  ];
}

async function openJob(id, { focus = false } = {}) {
  openId = id;
  try {
    const job = await call('GET', `/v1/jobs/${encodeURIComponent(id)}`);
    if (openId !== id) return;
    const { result, ...summary } = job;
    $('job-detail-title').textContent = `Job ${job.id}`;
    openId = job.id;
    $('job-cancel').hidden = !live(job.status);
    fill($('job-fields'), jobFields(summary));
    const poll = (await pollRoutesOnce())[job.queue];
    const pollPath = poll ? `${poll.prefix}${encodeURIComponent(job.id)}` : null;
    // A job whose paged poll answer carries pages (a crawl) shows those pages; any other its result.
    const crawled = poll?.paged ? await jobPages(pollPath) : null;
    if (openId !== id) return;
    $('job-result-title').textContent = crawled ? 'Pages' : 'Result';
    if (crawled) {
      const { answer, pages } = crawled;
      if (live(job.status))
        fill(
          $('job-fields'),
          jobFields(summary, { 'Pages so far': `${fmtInt(answer.total ?? pages.length)} scraped` }),
        );
      fill($('job-result'), crawlView(job.id, answer, pages));
      $('job-poll').hidden = true;
    } else {
      fill(
        $('job-result'),
        el(
          'pre',
          { class: 'code' },
          result === null || result === undefined ? '(no result yet)' : JSON.stringify(result, null, 2),
        ),
      );
      $('job-poll').hidden = !pollPath;
      if (pollPath) {
        $('job-poll-title').textContent = `Poll answer: GET ${pollPath}`;
        call('GET', pollPath).then(
          (answer) => {
            $('job-poll-body').textContent = JSON.stringify(answer, null, 2);
          },
          (err) => {
            $('job-poll-body').textContent = err.message;
          },
        );
      }
    }
    $('job-detail').hidden = false;
    if (focus) $('job-detail-title').focus();
    return RUNNING.has(job.status);
  } catch (err) {
    showError('jobs-error', err);
    return false;
  }
}

async function reload({ quiet = false } = {}) {
  if (!quiet) showError('jobs-error', null);
  try {
    const listRunning = await load();
    const wanted = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('id');
    const jobRunning = wanted ? await openJob(wanted, { focus: false }) : false;
    if (!wanted) $('job-detail').hidden = true;
    scheduleRefresh(listRunning || jobRunning);
  } catch (err) {
    showError('jobs-error', err);
    scheduleRefresh(false);
  }
}

export const jobsView = {
  init() {
    $('job-cancel').addEventListener('click', () => {
      if (openId) void cancelJob(openId);
    });
    $('jobs-filter').addEventListener('submit', (e) => {
      e.preventDefault();
      offset = 0;
      void reload();
    });
    $('jobs-status').addEventListener('change', () => {
      offset = 0;
      void reload();
    });
    $('jobs-prev').addEventListener('click', () => {
      offset = Math.max(0, offset - LIMIT);
      void reload();
    });
    $('jobs-next').addEventListener('click', () => {
      offset += LIMIT;
      void reload();
    });
  },
  show: () => reload(),
};
