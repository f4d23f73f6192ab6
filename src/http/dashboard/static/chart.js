// Credit usage over time as an inline SVG bar chart (no library), with a text summary for screen
// readers and the same numbers as a table.
import { el, fmtInt, table } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const credits = (n) => `${fmtInt(n)} credit${n === 1 ? '' : 's'}`;
const HOUR = 3_600_000;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

/** Buckets for a range ending now: 24 hourly ones, or 7 / 30 daily ones (local midnight). */
export function buckets(range, now = Date.now()) {
  if (range === '24h') {
    const end = Math.floor(now / HOUR) * HOUR + HOUR;
    return Array.from({ length: 24 }, (_, i) => {
      const start = end - (24 - i) * HOUR;
      return {
        start,
        end: start + HOUR,
        label: new Date(start).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }),
      };
    });
  }
  const days = range === '7d' ? 7 : 30;
  const today = new Date(now);
  today.setHours(0, 0, 0, 0);
  return Array.from({ length: days }, (_, i) => {
    const d = new Date(today);
    d.setDate(d.getDate() - (days - 1 - i));
    const next = new Date(d);
    next.setDate(next.getDate() + 1);
    return {
      start: d.getTime(),
      end: next.getTime(),
      label: d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' }),
    };
  });
}

/** Credits spent per bucket: the settled (charged) transactions; holds and releases net to these. */
export function spendPerBucket(transactions, bins) {
  const totals = bins.map(() => 0);
  for (const t of transactions) {
    if (t.type !== 'settled') continue;
    const i = bins.findIndex((b) => t.created_at >= b.start && t.created_at < b.end);
    if (i >= 0) totals[i] += -t.amount;
  }
  return totals;
}

/** Renders the chart into `figure` and the table into `tableHolder`; answers the total. */
export function renderUsageChart(figure, tableHolder, transactions, range) {
  const bins = buckets(range);
  const totals = spendPerBucket(transactions, bins);
  const total = totals.reduce((a, b) => a + b, 0);
  const peak = Math.max(0, ...totals);
  const width = 640;
  const height = 220;
  const pad = { left: 44, right: 8, top: 12, bottom: 28 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const top = Math.max(1, niceCeil(peak));
  const step = plotW / bins.length;
  const unit = range === '24h' ? 'hour' : 'day';
  const peakAt = peak > 0 ? bins[totals.indexOf(peak)].label : null;
  const summary =
    total === 0
      ? `No credits spent in this range.`
      : `${credits(total)} spent in this range; most in one ${unit}: ${credits(peak)} (${peakAt}).`;

  const chart = svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': 'chart-svg-title chart-svg-desc' },
    svg('title', { id: 'chart-svg-title' }, `Credits spent per ${unit}`),
    svg('desc', { id: 'chart-svg-desc' }, summary),
  );
  for (const f of [0, 0.5, 1]) {
    const y = pad.top + plotH * (1 - f);
    chart.append(svg('line', { class: 'grid', x1: pad.left, x2: width - pad.right, y1: y, y2: y }));
    chart.append(
      svg('text', { x: pad.left - 6, y: y + 4, 'text-anchor': 'end' }, fmtInt(Math.round(top * f * 10) / 10)),
    );
  }
  totals.forEach((value, i) => {
    const h = (value / top) * plotH;
    const bar = svg('rect', {
      class: 'bar',
      x: pad.left + i * step + step * 0.15,
      y: pad.top + plotH - h,
      width: Math.max(1, step * 0.7),
      height: Math.max(0, h),
    });
    bar.append(svg('title', {}, `${bins[i].label}: ${credits(value)}`));
    chart.append(bar);
  });
  chart.append(
    svg('line', {
      class: 'axis',
      x1: pad.left,
      x2: width - pad.right,
      y1: pad.top + plotH,
      y2: pad.top + plotH,
    }),
  );
  for (const i of [0, Math.floor(bins.length / 2), bins.length - 1]) {
    chart.append(
      svg(
        'text',
        { x: pad.left + i * step + step / 2, y: height - 8, 'text-anchor': 'middle' },
        bins[i].label,
      ),
    );
  }
  figure.replaceChildren(chart, el('figcaption', { class: 'hint' }, summary));
  tableHolder.replaceChildren(
    table(
      `Credits spent per ${unit}`,
      [unit === 'hour' ? 'Hour starting' : 'Day', { label: 'Credits spent', num: true }],
      bins.map((b, i) => [b.label, fmtInt(totals[i])]),
      { showCaption: true },
    ),
  );
  return total;
}

/** 1, 2, 5 × 10^n at or above n. */
function niceCeil(n) {
  if (n <= 0) return 0;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}
