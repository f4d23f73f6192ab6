// Credit usage over time as an inline SVG bar chart (no library), with a text summary for screen
// readers and the same numbers as a table.
import { el, fmtInt, table } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const credits = (n) => `${fmtInt(n)} credit${n === 1 ? '' : 's'}`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

/**
 * Buckets for a range ending now: 24 hourly ones, or 7 / 30 daily ones. Days are UTC days, the
 * buckets GET /v1/account/usage/summary sums by, labelled with their UTC date.
 */
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
  const end = Math.floor(now / DAY) * DAY + DAY;
  return Array.from({ length: days }, (_, i) => {
    const start = end - (days - i) * DAY;
    return {
      start,
      end: start + DAY,
      label: new Date(start).toLocaleDateString(undefined, {
        month: 'short',
        day: 'numeric',
        timeZone: 'UTC',
      }),
    };
  });
}

/**
 * Credits spent per bin, from the buckets of GET /v1/account/usage/summary (the ledger's own sums,
 * whatever the volume): each summary bucket goes to the bin it starts in.
 */
export function spendPerBucket(hours, bins) {
  const totals = bins.map(() => 0);
  for (const h of hours) {
    if (h.spent === 0) continue;
    const i = bins.findIndex((b) => h.start >= b.start && h.start < b.end);
    if (i >= 0) totals[i] += h.spent;
  }
  return totals;
}

/** Renders the chart of `usage` (a summary over `bins`) into `figure` and its table; answers the total. */
export function renderUsageChart(figure, tableHolder, usage, range, bins = buckets(range)) {
  const totals = spendPerBucket(usage.buckets, bins);
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
  // The first label starts at its bar and the last ends at its bar, so neither runs off the chart.
  const last = bins.length - 1;
  for (const i of [0, Math.floor(bins.length / 2), last]) {
    const anchor = i === 0 ? 'start' : i === last ? 'end' : 'middle';
    const x =
      i === 0 ? pad.left + i * step : i === last ? pad.left + (i + 1) * step : pad.left + i * step + step / 2;
    chart.append(svg('text', { x, y: height - 8, 'text-anchor': anchor }, bins[i].label));
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
