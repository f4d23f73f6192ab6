// Monitors from the command line: add one (a channel, playlist, page or site checked on a schedule),
// list them, read their events (or follow them live), pause, resume, check now and remove, through the
// SDK's monitor calls.
import fs from 'node:fs';
import {
  type CreateMonitorBody,
  isUnfurlError,
  type Monitor,
  type MonitorEvent,
  type Unfurl,
} from '@unfurl/sdk';
import type { CommandContext, CommandSpec } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { fields, isoTime, line, printJson, table } from '../output.js';
import { webUrl } from '../web-url.js';

const KINDS = ['channel', 'playlist', 'page', 'site'] as const;
type Kind = (typeof KINDS)[number];

/** What each action takes, besides the common options. */
const ACTION_OPTIONS: Record<string, { args: string; options: string[] }> = {
  add: {
    args: 'KIND TARGET',
    options: [
      'every',
      'timezone',
      'name',
      'webhook',
      'transcript',
      'lang',
      'max-videos',
      'render',
      'schema',
      'limit',
      'scrape',
      'diff',
    ],
  },
  list: { args: '', options: [] },
  show: { args: 'ID', options: [] },
  events: { args: 'ID', options: ['limit', 'follow', 'diff'] },
  pause: { args: 'ID', options: [] },
  resume: { args: 'ID', options: [] },
  check: { args: 'ID', options: [] },
  rm: { args: 'ID', options: [] },
};

/** How often `events --follow` asks for new events; UNFURL_FOLLOW_INTERVAL_MS changes it (tests). */
const FOLLOW_INTERVAL_MS = 2000;

/** `--schema`: JSON text, or @FILE holding it. */
function schemaOption(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = fs.readFileSync(raw.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(`--schema: cannot read ${raw.slice(1)} (${(err as Error).message})`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--schema: expected a JSON Schema object, or @FILE holding one');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('--schema: expected a JSON object');
  }
  return value as Record<string, unknown>;
}

function createBody(ctx: CommandContext): CreateMonitorBody {
  const [, kindArg, targetArg] = ctx.positionals;
  if (kindArg === undefined || targetArg === undefined) {
    throw new UsageError('monitor add: expected KIND (channel, playlist, page or site) and TARGET');
  }
  if (!(KINDS as readonly string[]).includes(kindArg)) {
    throw new UsageError(`monitor add: KIND is one of ${KINDS.join(', ')}, not "${kindArg}"`);
  }
  const kind = kindArg as Kind;
  const every = ctx.string('every');
  if (!every) throw new UsageError('monitor add: --every is required (e.g. 15m, 1h, 1d or "0 9 * * 1-5")');
  const transcript = ctx.string('transcript');
  if (transcript !== undefined && !['native', 'auto', 'generate'].includes(transcript)) {
    throw new UsageError('--transcript: one of native, auto, generate');
  }
  const lang = ctx.string('lang');
  if (lang !== undefined && transcript === undefined) {
    throw new UsageError('--lang goes with --transcript (the language of the transcripts)');
  }
  const render = ctx.string('render');
  if (render !== undefined && !['auto', 'always', 'never'].includes(render)) {
    throw new UsageError('--render: one of auto, always, never');
  }
  const target = kind === 'page' || kind === 'site' ? webUrl(targetArg) : targetArg;
  const body = {
    kind,
    target,
    every,
    timezone: ctx.string('timezone'),
    name: ctx.string('name'),
    webhookUrl: ctx.string('webhook'),
    transcript:
      transcript === undefined
        ? undefined
        : { mode: transcript as 'native' | 'auto' | 'generate', ...(lang && { lang }) },
    maxVideos: ctx.int('max-videos', 1, 50),
    render: render as 'auto' | 'always' | 'never' | undefined,
    schema: schemaOption(ctx.string('schema')),
    limit: ctx.int('limit', 1, 1000),
    scrape: ctx.values.scrape === true ? true : undefined,
    diff: ctx.values.diff === true ? true : undefined,
  };
  // Options the kind does not take are the server's to refuse (it names the ones it takes); options
  // not given are undefined, which the JSON body leaves out.
  return body;
}

const schedule = (m: Monitor) => `${m.every}${m.timezone ? ` (${m.timezone})` : ''}`;
const status = (m: Monitor) => (m.pausedReason === 'credits' ? 'paused (credits)' : m.status);

function printMonitor(ctx: CommandContext, m: Monitor) {
  fields(ctx.output, [
    ['id', m.id],
    ['kind', m.kind],
    ['target', m.target],
    ...(m.name ? [['name', m.name] as [string, unknown]] : []),
    ['schedule', schedule(m)],
    ['status', status(m)],
    ['next check', isoTime(m.nextCheckAt)],
    ['last check', isoTime(m.lastCheckAt)],
    ['checks', m.checks],
    ['events', m.events],
    ...(m.webhookUrl ? [['webhook', m.webhookUrl] as [string, unknown]] : []),
    ['feed', m.feedUrl],
  ]);
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);

/** One line's worth of what an event says. */
export function eventSummary(e: MonitorEvent): string {
  // Read loosely: a server newer than this client may add event types or fields.
  const d = e.data as Record<string, unknown>;
  const page = text(d.title) ?? text(d.url) ?? '';
  switch (e.type) {
    case 'video.new': {
      const video = (d.video ?? {}) as Record<string, unknown>;
      const title = text(video.title) ?? text(d.videoId) ?? '';
      return text(d.url) ? `${title} (${d.url})` : title;
    }
    case 'page.changed':
      return `${page}  +${Number(d.added ?? 0)} -${Number(d.removed ?? 0)}`;
    case 'page.gone':
      return `${page} is gone`;
    case 'page.back':
      return `${page} is back`;
    case 'site.changed': {
      const parts = [`${count(d.added)} added`, `${count(d.removed)} removed`];
      if (Array.isArray(d.changed)) parts.push(`${d.changed.length} changed`);
      return `${text(d.url) ?? ''}  ${parts.join(', ')}`;
    }
    case 'check.failed':
      return `${text(d.message) ?? 'the check failed'}${text(d.error) ? ` (${d.error})` : ''}`;
    case 'monitor.paused':
      return d.reason === 'credits' ? 'paused: the balance cannot pay for a check' : 'paused by you';
    case 'monitor.resumed':
      return d.reason === 'credits' ? 'resumed: the balance pays for checks again' : 'resumed by you';
    default: {
      const json = JSON.stringify(d);
      return json.length > 200 ? `${json.slice(0, 199)}…` : json;
    }
  }
}

function printEvent(ctx: CommandContext, e: MonitorEvent, withDiff: boolean) {
  if (ctx.output.json) {
    ctx.output.out.write(`${JSON.stringify(e)}\n`);
    return;
  }
  line(ctx.output, `${isoTime(e.createdAt)}  ${e.type.padEnd(15)}  ${eventSummary(e)}`);
  if (!withDiff) return;
  const diffs: string[] = [];
  const d = e.data as Record<string, unknown>;
  if (e.type === 'page.changed' && text(d.diff)) diffs.push(String(d.diff));
  if (e.type === 'site.changed' && Array.isArray(d.changed)) {
    for (const c of d.changed as { url?: string; diff?: string }[]) {
      if (text(c.diff)) diffs.push(String(c.diff));
    }
  }
  for (const d of diffs) ctx.output.out.write(d.endsWith('\n') ? d : `${d}\n`);
}

/** The newest events, up to `limit`, newest first. */
async function newestEvents(ctx: CommandContext, client: Unfurl, id: string, limit: number) {
  const events: MonitorEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.monitors.eventsPage(
      id,
      { limit: Math.min(100, limit - events.length), ...(cursor && { cursor }) },
      { signal: ctx.signal },
    );
    events.push(...page.events);
    cursor = page.next ?? undefined;
  } while (cursor && events.length < limit);
  return events.slice(0, limit);
}

/** Events not in `seen`, newest first: pages are read until one holds an event already seen. */
async function unseenEvents(ctx: CommandContext, client: Unfurl, id: string, seen: Set<string>) {
  const fresh: MonitorEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await client.monitors.eventsPage(
      id,
      { limit: 100, ...(cursor && { cursor }) },
      { signal: ctx.signal },
    );
    const unseen = page.events.filter((e) => !seen.has(e.id));
    fresh.push(...unseen);
    cursor = page.next ?? undefined;
    if (!cursor || unseen.length < page.events.length) return fresh;
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A blip (the network, a restart: 5xx) is waited out while following; anything else ends it. */
const passing = (err: unknown) =>
  isUnfurlError(err) && (err.code === 'network_error' || err.status >= 500 || err.status === 429);

async function events(ctx: CommandContext, client: Unfurl, id: string): Promise<number> {
  const limit = ctx.int('limit', 1, 1000) ?? 20;
  const withDiff = ctx.values.diff === true;
  const first = (await newestEvents(ctx, client, id, limit)).reverse();
  if (ctx.values.follow !== true) {
    if (ctx.output.json) printJson(ctx.output, { events: first });
    else {
      for (const e of first) printEvent(ctx, e, withDiff);
      if (first.length === 0) line(ctx.output, 'no events yet');
    }
    return 0;
  }
  // A live tail: what there is, then each new event as it comes (JSON: one event a line), until Ctrl-C.
  const seen = new Set<string>();
  for (const e of first) {
    seen.add(e.id);
    printEvent(ctx, e, withDiff);
  }
  const given = Number(ctx.env.UNFURL_FOLLOW_INTERVAL_MS);
  const intervalMs = Number.isInteger(given) && given >= 10 ? given : FOLLOW_INTERVAL_MS;
  if (!ctx.output.json) ctx.output.err.write(`following ${id}: new events appear here (Ctrl-C stops)\n`);
  let failing = false;
  while (!ctx.signal.aborted) {
    await pause(intervalMs, ctx.signal);
    if (ctx.signal.aborted) break;
    try {
      const fresh = await unseenEvents(ctx, client, id, seen);
      for (const e of fresh.reverse()) {
        seen.add(e.id);
        printEvent(ctx, e, withDiff);
      }
      if (failing) ctx.output.err.write('the server answers again\n');
      failing = false;
    } catch (err) {
      if (ctx.signal.aborted) break;
      if (!passing(err)) throw err;
      if (!failing) ctx.output.err.write(`${(err as Error).message}; trying again\n`);
      failing = true;
    }
  }
  // Ctrl-C is how a tail ends: not a failure.
  return 0;
}

export const monitor: CommandSpec = {
  name: 'monitor',
  summary: 'watch channels, playlists, pages and sites on a schedule: add, list, events, pause, rm',
  usage:
    'add KIND TARGET --every WHEN [options] | list | events ID [--follow] | show|pause|resume|check|rm ID',
  details: `  add KIND TARGET        a new monitor: KIND channel or playlist (new videos), page (changes of one
                         page) or site (pages added, removed or changed); TARGET a channel id, @handle
                         or URL, a playlist id or URL, or the page's URL. Its first check sets the baseline
  list                   every monitor: id, kind, status, schedule, checks, events, target
  show ID                one monitor, with its feed URL
  events ID              its events, oldest first: time, type, what happened
  pause ID, resume ID    stop checking it, and start again
  check ID               check it now (its schedule goes on)
  rm ID                  delete it and its events

add:
  --every WHEN           how often: an interval (15m, 1h, 1d) or a cron expression ("0 9 * * 1-5")
  --timezone TZ          IANA time zone of a cron --every (default UTC)
  --name NAME            a name for it
  --webhook URL          each event is also sent here (signed with your webhook secret)
  --transcript MODE      channel, playlist: each new video with its transcript (native, auto, generate)
  --lang LANG            the transcripts' language
  --max-videos N         channel, playlist: most new videos one check reports (1–50, default 10)
  --render MODE          page, site: headless browser: auto (default), always, never
  --schema JSON|@FILE    page: a JSON Schema; each check extracts these fields and reports changes
  --limit N              site: most pages mapped (1–1000, default 100)
  --scrape               site: also scrape each page and report the pages that changed
  --diff                 site with --scrape: each changed page comes with its diff

events:
  --limit N              the newest N events (1–1000, default 20)
  --follow, -f           then wait for new ones and print each as it comes, until Ctrl-C
                         (with --json: one event a line)
  --diff                 a change's diff below its line`,
  options: {
    every: { type: 'string' },
    timezone: { type: 'string' },
    name: { type: 'string' },
    webhook: { type: 'string' },
    transcript: { type: 'string' },
    lang: { type: 'string' },
    'max-videos': { type: 'string' },
    render: { type: 'string' },
    schema: { type: 'string' },
    limit: { type: 'string' },
    scrape: { type: 'boolean' },
    diff: { type: 'boolean' },
    follow: { type: 'boolean', short: 'f' },
  },
  positionals: [1, 3],
  async run(ctx) {
    const [action, ...args] = ctx.positionals;
    const spec = ACTION_OPTIONS[action!];
    if (!spec) {
      throw new UsageError(
        `unknown monitor action "${action}": one of ${Object.keys(ACTION_OPTIONS).join(', ')}`,
      );
    }
    const wanted = spec.args ? spec.args.split(' ').length : 0;
    if (args.length !== wanted) {
      throw new UsageError(
        wanted ? `monitor ${action}: expected ${spec.args}` : `monitor ${action} takes no arguments`,
      );
    }
    for (const name of Object.keys(monitor.options)) {
      if (ctx.values[name] !== undefined && !spec.options.includes(name)) {
        throw new UsageError(`--${name} is not an option of \`monitor ${action}\``);
      }
    }
    const client = ctx.client({ requireKey: true });
    const id = args[0]!;
    const show = (value: unknown, text: () => void) => {
      if (ctx.output.json) printJson(ctx.output, value);
      else text();
      return 0;
    };
    switch (action) {
      case 'add': {
        const m = await client.monitors.create(createBody(ctx), { signal: ctx.signal });
        return show(m, () => {
          printMonitor(ctx, m);
          ctx.output.err.write(
            `its first check sets the baseline; \`unfurl monitor events ${m.id} --follow\` shows what it finds\n`,
          );
        });
      }
      case 'list': {
        const all: Monitor[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.monitors.page(
            { limit: 100, ...(cursor && { cursor }) },
            { signal: ctx.signal },
          );
          all.push(...page.monitors);
          cursor = page.next ?? undefined;
        } while (cursor);
        return show({ monitors: all }, () => {
          if (all.length === 0) {
            line(ctx.output, 'no monitors: `unfurl monitor add KIND TARGET --every WHEN` makes one');
            return;
          }
          table(
            ctx.output,
            ['ID', 'KIND', 'STATUS', 'EVERY', 'CHECKS', 'EVENTS', 'TARGET'],
            all.map((m) => [m.id, m.kind, status(m), schedule(m), m.checks, m.events, m.name ?? m.target]),
          );
        });
      }
      case 'show': {
        const m = await client.monitors.get(id, { signal: ctx.signal });
        return show(m, () => {
          printMonitor(ctx, m);
          if (m.lastChecks?.length) {
            line(ctx.output);
            table(
              ctx.output,
              ['CHECK', 'STATUS', 'STARTED', 'CREDITS', 'ERROR'],
              m.lastChecks.map((c) => [c.jobId, c.status, isoTime(c.createdAt), c.cost, c.error]),
            );
          }
        });
      }
      case 'events':
        return events(ctx, client, id);
      case 'pause':
      case 'resume': {
        const m = await client.monitors.update(id, { paused: action === 'pause' }, { signal: ctx.signal });
        return show(m, () =>
          line(
            ctx.output,
            action === 'pause'
              ? `paused ${m.id}: no checks until \`unfurl monitor resume ${m.id}\``
              : `resumed ${m.id}: next check ${isoTime(m.nextCheckAt)}`,
          ),
        );
      }
      case 'check': {
        const accepted = await client.monitors.check(id, { signal: ctx.signal });
        return show(accepted, () =>
          line(ctx.output, `checking ${id} now: job ${accepted.jobId} (\`unfurl jobs ${accepted.jobId}\`)`),
        );
      }
      default: {
        const deleted = await client.monitors.delete(id, { signal: ctx.signal });
        return show(deleted, () => line(ctx.output, `deleted ${id} and its events`));
      }
    }
  },
};
