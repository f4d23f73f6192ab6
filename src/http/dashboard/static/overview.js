// Overview: balance, credit usage chart and per-operation breakdown (from GET
// /v1/account/usage/summary: sums the ledger keeps, right for any volume) and the latest transactions.
import { activity, activityTable, jobsFor, packages } from './activity.js';
import { call } from './api.js';
import { buckets, renderUsageChart } from './chart.js';
import { $, copyButton, el, fill, fmtInt, showError, table } from './dom.js';

/** The summary of the range's bins: hourly for the last 24 hours, else daily (UTC days). */
async function summaryFor(range) {
  const bins = buckets(range);
  const summary = await call('GET', '/v1/account/usage/summary', {
    query: { from: bins[0].start, to: bins[bins.length - 1].end, bucket: range === '24h' ? 'hour' : 'day' },
  });
  return { bins, summary };
}

/** Below this balance the overview suggests buying more. */
const LOW_BALANCE = 20;

function gettingStarted() {
  const curl = `curl -s "${window.location.origin}/v1/web/scrape?url=https://example.com" \\
  -H "Authorization: Bearer $UNFURL_API_KEY"`;
  const copy = copyButton(() => curl, 'Copy the command');
  return [
    el('h2', {}, 'Get started'),
    el(
      'p',
      {},
      'Set UNFURL_API_KEY to the API key you were given when you registered (or ',
      el('a', { href: '#/keys' }, 'create one'),
      '), then scrape your first page for 1 credit:',
    ),
    el(
      'div',
      { class: 'snippet' },
      el('pre', { class: 'code', 'data-testid': 'getting-started-curl' }, curl),
      copy,
    ),
    el(
      'p',
      { class: 'hint' },
      'Or try any operation in the ',
      el('a', { href: '#/playground' }, 'playground'),
      '; the full reference is at ',
      el('a', { href: '/docs' }, '/docs'),
      '.',
    ),
  ];
}

async function load() {
  const [account, usage, latest, jobs] = await Promise.all([
    call('GET', '/v1/account'),
    summaryFor($('chart-range').value),
    // The latest transactions, folded below into requests and jobs (each writes up to three).
    call('GET', '/v1/account/usage', { query: { limit: 60 } }),
    call('GET', '/v1/jobs', { query: { limit: 100 } }),
  ]);
  $('balance').textContent = fmtInt(account.credits);
  const transactions = latest.transactions;
  const low = $('low-balance');
  low.hidden = account.credits >= LOW_BALANCE;
  $('low-balance-text').textContent =
    `Your balance is low: ${fmtInt(account.credits)} credit${account.credits === 1 ? '' : 's'} left.`;
  // A new account: nothing but the free credits yet.
  const isNew = transactions.every((t) => t.type === 'grant');
  $('getting-started').hidden = !isNew;
  if (isNew) fill($('getting-started'), gettingStarted());
  draw(usage);
  const recent = activity(transactions).slice(0, 15);
  const [pkgs, known] = await Promise.all([
    packages(),
    jobsFor(recent, new Map(jobs.jobs.map((j) => [j.id, j]))),
  ]);
  fill(
    $('recent-transactions'),
    recent.length
      ? activityTable('Latest requests, jobs and purchases', recent, known, pkgs)
      : el('p', { class: 'hint' }, 'No activity yet.'),
  );
}

function draw({ bins, summary }) {
  const total = renderUsageChart($('chart'), $('chart-table'), summary, $('chart-range').value, bins);
  $('spent-total').textContent = fmtInt(total);
  const ops = summary.operations.filter((o) => o.spent > 0);
  fill(
    $('operation-breakdown'),
    ops.length
      ? table(
          'Credits spent per operation in this range',
          ['Operation', { label: 'Credits spent', num: true }, { label: 'Share', num: true }],
          ops.map((o) => [o.operation, fmtInt(o.spent), `${Math.round((o.spent / total) * 100)} %`]),
          { showCaption: true },
        )
      : el('p', { class: 'hint' }, 'Nothing spent in this range.'),
  );
}

async function redraw() {
  showError('overview-error', null);
  try {
    draw(await summaryFor($('chart-range').value));
  } catch (err) {
    showError('overview-error', err);
  }
}

export const overviewView = {
  init() {
    $('chart-range').addEventListener('change', () => void redraw());
    $('low-balance-buy').addEventListener('click', () => {
      window.location.hash = '#/credits';
    });
  },
  async show() {
    showError('overview-error', null);
    try {
      await load();
    } catch (err) {
      showError('overview-error', err);
    }
  },
};
