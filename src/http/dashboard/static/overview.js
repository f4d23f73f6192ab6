// Overview: balance, credit usage chart (from GET /v1/account/usage) and the latest transactions.
import { call } from './api.js';
import { renderUsageChart } from './chart.js';
import { $, el, fill, fmtInt, fmtTime, showError, table } from './dom.js';

const PAGE = 100;
const MAX_PAGES = 10; // the chart reads at most the latest 1000 transactions

/** The account's transactions created since `since`, newest first (paged). */
async function transactionsSince(since) {
  const out = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await call('GET', '/v1/account/usage', { query: { limit: PAGE, offset: page * PAGE } });
    out.push(...res.transactions);
    const last = res.transactions[res.transactions.length - 1];
    if (res.transactions.length < PAGE || !last || last.created_at < since) break;
  }
  return out;
}

let cached = [];

async function load() {
  const [account, transactions] = await Promise.all([
    call('GET', '/v1/account'),
    transactionsSince(Date.now() - 31 * 24 * 3_600_000),
  ]);
  cached = transactions;
  $('balance').textContent = fmtInt(account.credits);
  draw();
  const recent = transactions.slice(0, 10);
  fill(
    $('recent-transactions'),
    recent.length
      ? table(
          'Latest credit transactions',
          ['When', 'Type', { label: 'Credits', num: true }, 'Description', 'Job or request'],
          recent.map((t) => [
            fmtTime(t.created_at),
            t.type,
            t.amount > 0 ? `+${fmtInt(t.amount)}` : fmtInt(t.amount),
            t.description,
            t.job_id ? el('code', {}, t.job_id) : '—',
          ]),
        )
      : el('p', { class: 'hint' }, 'No transactions yet.'),
  );
}

function draw() {
  const total = renderUsageChart($('chart'), $('chart-table'), cached, $('chart-range').value);
  $('spent-total').textContent = fmtInt(total);
}

export const overviewView = {
  init() {
    $('chart-range').addEventListener('change', draw);
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
