// A watch page → the two JSON documents embedded in it: ytInitialPlayerResponse (a web-client player
// answer, with the microformat: upload date, likes) and ytInitialData (the same shape as a /next
// answer: the like button, the owner block, the comment count). Also reads the legacy `pbj=1` JSON
// form. Pure.
import { parseCount } from './counts.js';
import { extractAssignedJson } from './initial-data.js';
import { asArray, asString, bestImage, dig, findAll, findFirst, isRecord, textOf } from './tree.js';

export interface WatchPage {
  player: Record<string, unknown> | null;
  initialData: Record<string, unknown> | null;
}

function fromPbj(body: string): WatchPage {
  const out: WatchPage = { player: null, initialData: null };
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return out;
  }
  for (const part of Array.isArray(doc) ? doc : [doc]) {
    const p = part as { playerResponse?: unknown; response?: unknown } | null;
    if (p?.playerResponse && typeof p.playerResponse === 'object') {
      out.player ??= p.playerResponse as Record<string, unknown>;
    }
    if (p?.response && typeof p.response === 'object')
      out.initialData ??= p.response as Record<string, unknown>;
  }
  return out;
}

export function parseWatchPage(body: string): WatchPage {
  const head = body.trimStart();
  if (head.startsWith('[') || head.startsWith('{')) return fromPbj(head);
  return {
    player: extractAssignedJson(body, 'ytInitialPlayerResponse'),
    initialData: extractAssignedJson(body, 'ytInitialData'),
  };
}

const LIKES_LABEL =
  /along with ([\d,.\s\u00a0\u202f]+) other (?:people|person)|^([\d,.\s\u00a0\u202f]+) likes?$/i;

/**
 * The like count shown under the video in a /next answer (or a watch page's ytInitialData): the
 * like button's accessibility label, in the old (toggleButtonRenderer) and new (view-model) layouts.
 * null when hidden or not found.
 */
export function likeCountFromNext(initialData: unknown): number | null {
  const results = (initialData as { contents?: { twoColumnWatchNextResults?: { results?: unknown } } } | null)
    ?.contents?.twoColumnWatchNextResults?.results;
  const primary = findKey(results, 'videoPrimaryInfoRenderer', 8);
  if (!primary) return null;
  let found: number | null = null;
  walk(primary, 24, (key, value) => {
    if (found !== null || typeof value !== 'string') return;
    if (key !== 'label' && key !== 'accessibilityText') return;
    if (/dislike/i.test(value)) return;
    const m = LIKES_LABEL.exec(value.trim());
    const digits = (m?.[1] ?? m?.[2])?.replace(/\D/g, '');
    if (digits) found = Number(digits);
  });
  return found;
}

/** The channel as the watch page shows it under the video. */
export interface VideoOwner {
  /** "@handle" (null for channels without one: their URL is /channel/… or /user/…). */
  handle: string | null;
  name: string | null;
  avatar: string | null;
  verified: boolean;
}

/** The owner block under the video in a /next answer (videoOwnerRenderer), null when absent. */
export function ownerFromNext(initialData: unknown): VideoOwner | null {
  const owner = findFirst(dig(initialData, 'contents'), 'videoOwnerRenderer');
  if (!isRecord(owner)) return null;
  const base = asString(findFirst(owner.navigationEndpoint ?? owner.title, 'canonicalBaseUrl'));
  return {
    handle: base?.startsWith('/@') ? base.slice(1) : null,
    name: textOf(owner.title),
    avatar: bestImage(owner.thumbnail),
    verified: asArray(owner.badges).some((b) =>
      /VERIFIED/.test(String(dig(b, 'metadataBadgeRenderer', 'style') ?? '')),
    ),
  };
}

/**
 * The comment count a /next answer shows: the comments panel's header ("2.7K", rounded as shown) or
 * the entry point's count; null when comments are off or not shown.
 */
export function commentCountFromNext(initialData: unknown): number | null {
  for (const panel of findAll(initialData, 'engagementPanelSectionListRenderer')) {
    const id = String(dig(panel, 'panelIdentifier') ?? dig(panel, 'targetId') ?? '');
    if (!/comment/.test(id)) continue;
    const count = parseCount(textOf(findFirst(dig(panel, 'header'), 'contextualInfo')));
    if (count !== null) return count;
  }
  return parseCount(textOf(findFirst(initialData, 'commentCount')));
}

function findKey(node: unknown, key: string, depth: number): unknown {
  if (!node || typeof node !== 'object' || depth < 0) return null;
  if (!Array.isArray(node) && key in node) return (node as Record<string, unknown>)[key];
  for (const child of Object.values(node)) {
    const hit = findKey(child, key, depth - 1);
    if (hit) return hit;
  }
  return null;
}

function walk(node: unknown, depth: number, visit: (key: string, value: unknown) => void): void {
  if (!node || typeof node !== 'object' || depth < 0) return;
  for (const [key, value] of Object.entries(node)) {
    visit(key, value);
    walk(value, depth - 1, visit);
  }
}
