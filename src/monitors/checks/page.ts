// A check of one web page: scrape it and compare with the last snapshot. What changes on every
// fetch (a rotating ad, a timestamp, a token in a link) must not be reported: the baseline is two
// fetches whose differences are learned as volatile, and a change is confirmed by one more fetch —
// what differs again is volatile too; only what stayed the same in both is reported. A 404/410 is
// `gone`, a page answering again after that is `back`.
import { prices } from '../../billing/prices.js';
import { AppError } from '../../errors.js';
import type { ScrapedPage, ScrapeOptions } from '../../sources/web/scraper.js';
import { MONITOR_CHECK_PRICES } from '../kinds.js';
import { comparePages, learnVolatile } from '../page-diff.js';
import type { CheckContext, CheckOutcome } from './check.js';

/** The snapshot's text is kept up to this size (the scraper's own cap is larger). */
const SNAPSHOT_MAX_CHARS = 2_000_000;
/** Volatile slots remembered (a page with more is all noise anyway). */
const VOLATILE_KEPT = 500;

export interface PageState {
  /** `gone` after a 404/410. */
  status: 'up' | 'gone';
  markdown: string;
  title: string | null;
  volatile: string[];
  /** What the monitor's schema extracted from the snapshot (page monitors with a schema). */
  fields?: unknown;
}

export interface PageCheckDeps {
  scrape(url: string, options: ScrapeOptions): Promise<ScrapedPage>;
  /** The fields `schema` describes, extracted from the page by the language model. */
  extract(schema: Record<string, unknown>, markdown: string, signal: AbortSignal): Promise<unknown>;
}

export interface PageCheckInput {
  url: string;
  render?: ScrapeOptions['render'];
  /** A JSON Schema: the fields extracted at the baseline and on each change, compared. */
  schema?: Record<string, unknown>;
}

/** A field that changed: its path in the extracted data (`plans[0].price`), before and after. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** Leaves of a JSON value by path (arrays by index); an empty object or array is a leaf. */
function leaves(value: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value) && value.length) {
    for (const [i, v] of value.entries()) leaves(v, `${path}[${i}]`, out);
  } else if (value && typeof value === 'object' && Object.keys(value).length) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else out.set(path, value);
  return out;
}

/** The fields whose values differ between two extractions, in the order of the newer one. */
export function changedFields(before: unknown, after: unknown): FieldChange[] {
  const a = leaves(before);
  const b = leaves(after);
  const changes: FieldChange[] = [];
  for (const [field, to] of b) {
    const from = a.has(field) ? a.get(field) : null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes.push({ field, from, to });
  }
  for (const [field, from] of a) if (!b.has(field)) changes.push({ field, from, to: null });
  return changes;
}

/** The page, or null when it answered 404/410. */
async function fetchPage(
  deps: PageCheckDeps,
  input: PageCheckInput,
  ctx: CheckContext,
): Promise<{ markdown: string; title: string | null; url: string } | null> {
  try {
    const page = await deps.scrape(input.url, {
      ...(input.render && { render: input.render }),
      signal: ctx.signal,
      account: ctx.accountId,
    });
    return { markdown: page.content.slice(0, SNAPSHOT_MAX_CHARS), title: page.name, url: page.url };
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') return null;
    throw err;
  }
}

const merged = (a: readonly string[], b: readonly string[]) =>
  [...new Set([...a, ...b])].slice(0, VOLATILE_KEPT);

export async function checkPage(
  deps: PageCheckDeps,
  input: PageCheckInput,
  state: PageState | null,
  ctx: CheckContext,
): Promise<CheckOutcome<PageState>> {
  // One scrape's price whatever the fetches behind it (the second fetch is ours, to learn the noise).
  const cost = prices.syncRequest;
  const first = await fetchPage(deps, input, ctx);
  if (!state) {
    if (!first)
      return {
        state: { status: 'gone', markdown: '', title: null, volatile: [] },
        events: [],
        cost,
        baseline: true,
      };
    const again = await fetchPage(deps, input, ctx);
    const volatile = again ? learnVolatile([first.markdown, again.markdown]) : [];
    const fields = input.schema ? await deps.extract(input.schema, first.markdown, ctx.signal) : undefined;
    return {
      state: {
        status: 'up',
        markdown: first.markdown,
        title: first.title,
        volatile: volatile.slice(0, VOLATILE_KEPT),
        ...(input.schema && { fields }),
      },
      events: [],
      cost: cost + (input.schema ? MONITOR_CHECK_PRICES.fieldsExtraction : 0),
      baseline: true,
    };
  }
  if (!first) {
    if (state.status === 'gone') return { state, events: [], cost, baseline: false };
    return {
      state: { ...state, status: 'gone' },
      events: [
        { type: 'page.gone', dedupeKey: `gone:${ctx.jobId}`, data: { url: input.url, title: state.title } },
      ],
      cost,
      baseline: false,
    };
  }
  if (state.status === 'gone') {
    // Back: a new baseline (what it shows now may be anything), reported as such.
    return {
      state: { status: 'up', markdown: first.markdown, title: first.title, volatile: state.volatile },
      events: [
        { type: 'page.back', dedupeKey: `back:${ctx.jobId}`, data: { url: input.url, title: first.title } },
      ],
      cost,
      baseline: false,
    };
  }
  const seen = comparePages(state.markdown, first.markdown, state.volatile);
  if (!seen.changed)
    return { state: { ...state, title: first.title ?? state.title }, events: [], cost, baseline: false };

  // Confirm: what differs between this fetch and one more is noise; what stays is the change.
  const confirm = await fetchPage(deps, input, ctx);
  const latest = confirm ?? first;
  const volatile = confirm
    ? merged(state.volatile, learnVolatile([first.markdown, confirm.markdown]))
    : state.volatile;
  const change = comparePages(state.markdown, latest.markdown, volatile);
  if (!change.changed) return { state: { ...state, volatile }, events: [], cost, baseline: false };
  // With a schema, the fields are extracted again and compared with the snapshot's.
  const fields = input.schema ? await deps.extract(input.schema, latest.markdown, ctx.signal) : undefined;
  return {
    state: {
      status: 'up',
      markdown: latest.markdown,
      title: latest.title,
      volatile,
      ...(input.schema && { fields }),
    },
    events: [
      {
        type: 'page.changed',
        dedupeKey: `changed:${ctx.jobId}`,
        data: {
          url: input.url,
          title: latest.title,
          diff: change.diff,
          sections: change.sections,
          added: change.added,
          removed: change.removed,
          ...(input.schema && { fields: changedFields(state.fields ?? null, fields), data: fields }),
        },
      },
    ],
    cost: cost + (input.schema ? MONITOR_CHECK_PRICES.fieldsExtraction : 0),
    baseline: false,
  };
}
