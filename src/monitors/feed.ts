// A monitor's events as feed entries: a title and a summary per kind of event, the page's diff as
// the entry's content. Pure: the route reads the events and writes the document.
import type { MonitorEventRow, MonitorRow } from '../store/schema.js';
import { type AtomEntry, renderAtomFeed } from './atom.js';

type Data = Record<string, unknown>;

const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

function describe(type: string, data: Data, monitor: Pick<MonitorRow, 'target' | 'name'>) {
  const label = monitor.name ?? monitor.target;
  const video = (data.video ?? {}) as Data;
  switch (type) {
    case 'video.new':
      return {
        title: `New video: ${text(video.title) ?? text(data.videoId) ?? ''}`,
        summary: `${label} has a new video${text(video.title) ? `: ${video.title}` : ''}.`,
        link: text(data.url),
        content: text((data.transcript as Data | undefined)?.content),
      };
    case 'page.changed':
      return {
        title: `Changed: ${text(data.title) ?? text(data.url) ?? label}`,
        summary: `${Number(data.added ?? 0)} lines added, ${Number(data.removed ?? 0)} removed.`,
        link: text(data.url),
        content: text(data.diff),
      };
    case 'page.gone':
      return {
        title: `Gone: ${text(data.title) ?? text(data.url) ?? label}`,
        summary: 'The page answers 404 or 410.',
        link: text(data.url),
      };
    case 'page.back':
      return {
        title: `Back: ${text(data.title) ?? text(data.url) ?? label}`,
        summary: 'The page answers again.',
        link: text(data.url),
      };
    case 'site.changed': {
      const n = (k: string) => (Array.isArray(data[k]) ? (data[k] as unknown[]).length : 0);
      return {
        title: `Site changed: ${label}`,
        summary: `${n('added')} pages added, ${n('removed')} removed, ${n('changed')} changed.`,
        link: text(data.url),
        content: JSON.stringify({ added: data.added, removed: data.removed, changed: data.changed }, null, 2),
      };
    }
    case 'check.failed':
      return { title: `Check failed: ${label}`, summary: text(data.message) ?? 'The check failed.' };
    default:
      return { title: `${type}: ${label}`, summary: text(data.reason) ? `Reason: ${data.reason}` : type };
  }
}

export function monitorFeed(
  monitor: Pick<MonitorRow, 'id' | 'target' | 'name' | 'kind' | 'updated_at'>,
  events: readonly MonitorEventRow[],
  selfUrl: string,
): string {
  const entries: AtomEntry[] = events.map((e) => {
    const d = describe(e.type, JSON.parse(e.data) as Data, monitor);
    return {
      id: e.id,
      title: d.title,
      updated: Number(e.created_at),
      published: Number(e.created_at),
      summary: d.summary,
      ...(d.link && { link: d.link }),
      ...('content' in d && d.content && { content: d.content }),
    };
  });
  return renderAtomFeed({
    id: monitor.id,
    title: `Unfurl monitor: ${monitor.name ?? monitor.target}`,
    selfUrl,
    ...(monitor.kind === 'page' || monitor.kind === 'site' ? { alternateUrl: monitor.target } : {}),
    updated: entries[0]?.updated ?? Number(monitor.updated_at),
    entries,
  });
}
