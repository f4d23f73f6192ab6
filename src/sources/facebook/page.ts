// A social-network video page → its video: the JSON of the page's <script type="application/json"
// data-sjs> blocks (ScheduledServerJS / RelayPrefetchedStreamCache) searched for video nodes — legacy
// playable_url / browser_native_{sd,hd}_url (also under videoDeliveryLegacyFields) or the newer
// videoDeliveryResponseResult.progressive_urls — and caption files from
// video_available_captions_locales[] or a single captions_url; and the post's title, owner, date and
// thumbnail (the video node, else the page's Open Graph tags). Pure and tolerant.
import { normaliseLang } from '../caption-files.js';
import { asArray, asString, dig, findAll, isRecord, type JsonRecord } from '../youtube/tree.js';

export interface FacebookCaptionTrack {
  lang: string;
  url: string;
  /** Made automatically (creation method set), not uploaded by the owner. */
  auto: boolean;
}

export interface FacebookVideo {
  id: string | null;
  /** Progressive files, smallest (SD) first. */
  urls: string[];
  durationSec: number | null;
  captions: FacebookCaptionTrack[];
  /** What the page says of the post: from the video node, else the page's Open Graph tags. */
  post: {
    title: string | null;
    description: string | null;
    owner: { id: string | null; name: string | null };
    /** Unix seconds. */
    publishedAt: number | null;
    thumbnail: string | null;
  };
}

export type FacebookPage =
  | { kind: 'video'; video: FacebookVideo }
  | { kind: 'login' }
  | { kind: 'missing' }
  | { kind: 'unknown' };

/** Every JSON block of the page's data-sjs scripts (also plain application/json ones). */
export function pageJsonBlocks(html: string): unknown[] {
  const out: unknown[] = [];
  const re = /<script\b[^>]*type=["']application\/json["'][^>]*>([\s\S]*?)<\/script>/gi;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    try {
      out.push(JSON.parse(m[1]!));
    } catch {
      // not JSON after all: skip it
    }
  }
  return out;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function urlsOf(node: JsonRecord): string[] {
  const legacy = isRecord(node.videoDeliveryLegacyFields) ? node.videoDeliveryLegacyFields : node;
  const urls: string[] = [];
  for (const key of [
    'browser_native_sd_url',
    'playable_url',
    'browser_native_hd_url',
    'playable_url_quality_hd',
  ]) {
    const u = asString(legacy[key]) ?? asString(node[key]);
    if (u) urls.push(u);
  }
  const progressive = asArray(
    dig(node, 'videoDeliveryResponseFragment', 'videoDeliveryResponseResult', 'progressive_urls'),
  )
    .filter(isRecord)
    .map((p) => ({
      url: asString(p.progressive_url),
      hd: String(dig(p, 'metadata', 'quality') ?? '') === 'HD',
    }))
    .filter((p): p is { url: string; hd: boolean } => Boolean(p.url))
    .sort((a, b) => Number(a.hd) - Number(b.hd));
  urls.push(...progressive.map((p) => p.url));
  return [...new Set(urls)];
}

function isVideoNode(v: unknown): v is JsonRecord {
  if (!isRecord(v)) return false;
  return (
    isRecord(v.videoDeliveryLegacyFields) ||
    isRecord(v.videoDeliveryResponseFragment) ||
    typeof v.browser_native_sd_url === 'string' ||
    typeof v.playable_url === 'string'
  );
}

/** Every record in the tree that carries playable files. */
function videoNodes(root: unknown): JsonRecord[] {
  const found: JsonRecord[] = [];
  const visit = (at: unknown, depth: number) => {
    if (depth > 300) return;
    if (Array.isArray(at)) for (const item of at) visit(item, depth + 1);
    else if (isRecord(at)) {
      if (isVideoNode(at)) found.push(at);
      for (const k in at) {
        const v = at[k];
        if (typeof v === 'object' && v !== null) visit(v, depth + 1);
      }
    }
  };
  visit(root, 0);
  return found;
}

function captionTracks(root: unknown, fallbackLocale: string | null): FacebookCaptionTrack[] {
  const tracks: FacebookCaptionTrack[] = [];
  for (const list of findAll(root, 'video_available_captions_locales')) {
    for (const item of asArray(list)) {
      if (!isRecord(item)) continue;
      const url = asString(item.captions_url);
      const locale = asString(item.locale);
      if (!url || !locale) continue;
      tracks.push({
        lang: normaliseLang(locale),
        url,
        auto: Boolean(asString(item.localized_creation_method)),
      });
    }
  }
  if (tracks.length === 0) {
    for (const url of findAll(root, 'captions_url')) {
      if (typeof url === 'string' && url) {
        tracks.push({ lang: normaliseLang(fallbackLocale ?? 'en'), url, auto: false });
        break;
      }
    }
  }
  const seen = new Set<string>();
  return tracks.filter((t) => {
    if (seen.has(t.url)) return false;
    seen.add(t.url);
    return true;
  });
}

/** The content of `<meta property="og:…">` (either attribute order), entities decoded; null when absent. */
export function metaProperty(html: string, property: string): string | null {
  const tag = new RegExp(`<meta\\b[^>]*\\bproperty=["']${property}["'][^>]*>`, 'i').exec(html)?.[0];
  const content = tag ? /\bcontent=(["'])([\s\S]*?)\1/i.exec(tag)?.[2] : undefined;
  if (!content) return null;
  return content
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const textIn = (v: unknown): string | null => asString(v) ?? asString(dig(v, 'text'));

function postOf(node: JsonRecord, html: string): FacebookVideo['post'] {
  const owner = isRecord(node.owner) ? node.owner : {};
  return {
    title: textIn(node.title) ?? metaProperty(html, 'og:title')?.replace(/\s*\|\s*Facebook$/, '') ?? null,
    description: textIn(node.description) ?? textIn(node.message) ?? metaProperty(html, 'og:description'),
    owner: { id: asString(owner.id), name: asString(owner.name) },
    publishedAt: num(node.publish_time) ?? num(node.creation_time),
    thumbnail:
      asString(dig(node, 'preferred_thumbnail', 'image', 'uri')) ??
      asString(dig(node, 'thumbnailImage', 'uri')) ??
      metaProperty(html, 'og:image'),
  };
}

export function parseFacebookPage(html: string, videoId: string | null): FacebookPage {
  const blocks = pageJsonBlocks(html);
  const nodes = blocks.flatMap(videoNodes);
  const matching = videoId ? nodes.filter((n) => String(n.id ?? n.videoId ?? '') === videoId) : [];
  const chosen = [...matching, ...nodes].find((n) => urlsOf(n).length > 0);
  if (chosen) {
    const locale = /<meta[^>]+property=["']og:locale["'][^>]+content=["']([^"']+)/i.exec(html)?.[1] ?? null;
    const ms = num(chosen.playable_duration_in_ms);
    return {
      kind: 'video',
      video: {
        id: asString(chosen.id) ?? asString(chosen.videoId) ?? videoId,
        urls: urlsOf(chosen),
        durationSec: ms !== null ? ms / 1000 : num(chosen.length_in_second),
        captions: captionTracks([chosen, ...blocks], locale),
        post: postOf(chosen, html),
      },
    };
  }
  if (/id=["']login_form["']|\/login\/\?next=/i.test(html)) return { kind: 'login' };
  if (/content isn(?:'|&#039;|’)t available|content_unavailable|"is_content_unavailable":true/i.test(html)) {
    return { kind: 'missing' };
  }
  return { kind: 'unknown' };
}
