// A /player answer (any client, or the ytInitialPlayerResponse of a watch page) → what we use of it:
// playability, video details, microformat (web clients only) and caption tracks. Pure and tolerant:
// missing parts become null/empty, never a throw. playabilityError() maps the status to our errors.
import { AppError } from '../../errors.js';
import { isBotCheckReason } from './blocks.js';
import { absoluteUrl, asArray, asString, isRecord, type JsonRecord, textOf } from './tree.js';

export type Playability =
  | 'ok'
  | 'blocked'
  | 'unavailable'
  | 'private'
  | 'age_restricted'
  | 'members_only'
  | 'login_required'
  | 'restricted'
  | 'unplayable'
  | 'live_offline';

export interface CaptionTrack {
  languageCode: string;
  name: string | null;
  kind: 'manual' | 'asr';
  vssId: string | null;
  baseUrl: string;
  isTranslatable: boolean;
  /** The URL is gated behind a proof-of-origin token (exp=xpe/xpv): it answers an empty body. */
  poTokenRequired: boolean;
}

export interface Thumbnail {
  url: string;
  width: number;
  height: number;
}

export interface VideoDetails {
  videoId: string;
  title: string | null;
  description: string | null;
  lengthSeconds: number | null;
  channelId: string | null;
  author: string | null;
  keywords: string[];
  viewCount: number | null;
  thumbnails: Thumbnail[];
  isLive: boolean;
  isLiveContent: boolean;
  isUpcoming: boolean;
}

/** Only in web-client answers (watch page). */
export interface Microformat {
  uploadDate: string | null;
  publishDate: string | null;
  likeCount: number | null;
  category: string | null;
  isLiveNow: boolean;
  liveStart: string | null;
  thumbnails: Thumbnail[];
}

export interface PlayerInfo {
  status: Playability;
  /** The platform's status word (OK, ERROR, LOGIN_REQUIRED, UNPLAYABLE, …). */
  rawStatus: string | null;
  /** The platform's explanation, for error messages. */
  reason: string | null;
  details: VideoDetails | null;
  microformat: Microformat | null;
  tracks: CaptionTrack[];
  translationLanguages: Array<{ languageCode: string; name: string | null }>;
  /** Index into tracks of the track the platform shows by default. */
  defaultTrackIndex: number | null;
}

type Json = JsonRecord;

const obj = (v: unknown): Json | null => (isRecord(v) ? v : null);

const int = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return null;
};

function thumbnails(v: unknown): Thumbnail[] {
  return asArray(obj(v)?.thumbnails)
    .map(obj)
    .filter((t): t is Json => !!t && typeof t.url === 'string')
    .map((t) => ({
      url: absoluteUrl(t.url as string),
      width: int(t.width) ?? 0,
      height: int(t.height) ?? 0,
    }));
}

/** Every human-readable text of the playability block, for classification and messages. */
function playabilityTexts(status: Json): string[] {
  const screen = obj(status.errorScreen);
  const error = obj(screen?.playerErrorMessageRenderer);
  const dialog = obj(screen?.confirmDialogRenderer);
  const texts = [
    asString(status.reason),
    ...asArray(status.messages).map(asString),
    textOf(error?.reason),
    textOf(error?.subreason),
    textOf(dialog?.title),
    ...asArray(dialog?.dialogMessages).map(textOf),
  ];
  return texts.filter((t): t is string => !!t);
}

const AGE = /inappropriate|confirm your age|age[- ]restricted|age verification/i;
const MEMBERS = /members[- ]only|join this channel|channel members/i;
const PRIVATE = /private video/i;
const PAID_OR_REGION =
  /payment|purchase|rent|not made this video available in your country|in your country|blocked it in your country/i;

function classify(rawStatus: string | null, texts: string[]): Playability {
  const all = texts.join(' \n ');
  if (rawStatus === 'OK') return 'ok';
  if (isBotCheckReason(all)) return 'blocked';
  if (PRIVATE.test(all)) return 'private';
  if (AGE.test(all)) return 'age_restricted';
  if (MEMBERS.test(all)) return 'members_only';
  switch (rawStatus) {
    case 'ERROR':
      return 'unavailable';
    case 'LOGIN_REQUIRED':
    case 'CONTENT_CHECK_REQUIRED':
    case 'AGE_CHECK_REQUIRED':
      return 'login_required';
    case 'LIVE_STREAM_OFFLINE':
      return 'live_offline';
    case 'UNPLAYABLE':
      return PAID_OR_REGION.test(all) ? 'restricted' : 'unplayable';
    default:
      // No status at all, or one we do not know: only trust it if the video is described.
      return rawStatus === null ? 'unavailable' : 'unplayable';
  }
}

function details(v: unknown): VideoDetails | null {
  const d = obj(v);
  const videoId = asString(d?.videoId);
  if (!d || !videoId) return null;
  return {
    videoId,
    title: asString(d.title),
    description: typeof d.shortDescription === 'string' ? d.shortDescription : null,
    lengthSeconds: int(d.lengthSeconds),
    channelId: asString(d.channelId),
    author: asString(d.author),
    keywords: asArray(d.keywords).filter((k): k is string => typeof k === 'string'),
    viewCount: int(d.viewCount),
    thumbnails: thumbnails(d.thumbnail),
    isLive: d.isLive === true,
    isLiveContent: d.isLiveContent === true,
    isUpcoming: d.isUpcoming === true,
  };
}

function microformat(v: unknown): Microformat | null {
  const m = obj(obj(v)?.playerMicroformatRenderer);
  if (!m) return null;
  const live = obj(m.liveBroadcastDetails);
  return {
    uploadDate: asString(m.uploadDate),
    publishDate: asString(m.publishDate),
    likeCount: int(m.likeCount),
    category: asString(m.category),
    isLiveNow: live?.isLiveNow === true,
    liveStart: asString(live?.startTimestamp),
    thumbnails: thumbnails(m.thumbnail),
  };
}

function poTokenRequired(url: string): boolean {
  try {
    return /xp[ev]/.test(new URL(url).searchParams.get('exp') ?? '');
  } catch {
    return false;
  }
}

function tracks(list: unknown): CaptionTrack[] {
  const out: CaptionTrack[] = [];
  for (const item of asArray(list)) {
    const t = obj(item);
    const baseUrl = asString(t?.baseUrl);
    const languageCode = asString(t?.languageCode);
    if (!t || !baseUrl || !languageCode) continue;
    const vssId = asString(t.vssId);
    const url = absoluteUrl(baseUrl);
    out.push({
      languageCode,
      name: textOf(t.name),
      kind: t.kind === 'asr' || vssId?.startsWith('a.') ? 'asr' : 'manual',
      vssId,
      baseUrl: url,
      isTranslatable: t.isTranslatable === true,
      poTokenRequired: poTokenRequired(url),
    });
  }
  return out;
}

/** The top-level members of a player answer that parsePlayer reads. */
export const PLAYER_MEMBERS = ['playabilityStatus', 'videoDetails', 'microformat', 'captions'] as const;

export function parsePlayer(answer: unknown): PlayerInfo {
  const root = obj(answer) ?? {};
  const status = obj(root.playabilityStatus) ?? {};
  const rawStatus = asString(status.status);
  const texts = playabilityTexts(status);
  const captions = obj(obj(root.captions)?.playerCaptionsTracklistRenderer);
  const audio = asArray(captions?.audioTracks).map(obj);
  const audioIndex = int(captions?.defaultAudioTrackIndex) ?? 0;
  return {
    status: classify(rawStatus, texts),
    rawStatus,
    reason: texts[0] ?? null,
    details: details(root.videoDetails),
    microformat: microformat(root.microformat),
    tracks: tracks(captions?.captionTracks),
    translationLanguages: asArray(captions?.translationLanguages)
      .map(obj)
      .filter((l): l is Json => !!asString(l?.languageCode))
      .map((l) => ({ languageCode: l.languageCode as string, name: textOf(l.languageName) })),
    defaultTrackIndex: int((audio[audioIndex] ?? audio[0])?.defaultCaptionTrackIndex),
  };
}

export type PlayerUse = 'transcript' | 'metadata';

/**
 * The error a player answer means for a use, or null when it can be served. Unavailable, private
 * and removed → not_found; age-restricted, members-only, paid or region-locked media → forbidden for
 * transcripts, while metadata the platform still shows is served; a bot check left after retries → 502.
 */
export function playabilityError(info: PlayerInfo, use: PlayerUse, videoId: string): AppError | null {
  const why = info.reason ? `: ${info.reason}` : '';
  switch (info.status) {
    case 'ok':
      return null;
    case 'blocked':
      return new AppError('upstream_error', `youtube blocked the request (bot check) for video ${videoId}`);
    case 'unavailable':
    case 'private':
      return new AppError('not_found', `Video ${videoId} not found or not available${why}`, videoId);
    case 'unplayable':
      if (use === 'metadata' && info.details) return null;
      return new AppError('not_found', `Video ${videoId} is not available${why}`, videoId);
    case 'live_offline':
      if (use === 'metadata' && info.details) return null;
      return new AppError('transcript_unavailable', `Video ${videoId} is a live stream that has not started`);
    default:
      // age_restricted, members_only, login_required, restricted
      if (use === 'metadata' && info.details) return null;
      return new AppError(
        'forbidden',
        `Video ${videoId} is restricted (${info.status.replace('_', ' ')})${why}`,
      );
  }
}
