// A check of a channel or a playlist: list its newest videos, report each one not seen before (its
// metadata and, when asked, its transcript) and remember what was seen. The first check only sets
// the baseline. New videos beyond the check's cap stay unseen, so the next check reports them.
import { prices } from '../../billing/prices.js';
import { newId } from '../../ids.js';
import type { TranscriptMode, TranscriptOutcome } from '../../media/transcripts.js';
import type { MediaRef } from '../../sources/platform.js';
import type { VideoIdLists } from '../../sources/youtube/id-lists.js';
import type { VideoMetadata } from '../../sources/youtube/video.js';
import type { NewMonitorEvent } from '../records.js';
import type { CheckContext, CheckOutcome } from './check.js';

/**
 * Ids listed per check, each within the first page the platform answers (a page holds 30 of a
 * channel tab, 100 of a playlist): the newest of each channel tab (videos, shorts, live), or the
 * playlist's first page.
 */
const LISTED = { channelTab: 20, playlist: 100 } as const;
const CHANNEL_TABS = ['video', 'short', 'live'] as const;
/** Ids remembered as seen: more than a listing holds, so a video that drops out and back is not new. */
const SEEN_KEPT = 1000;
/** How often a check looks at a speech-recognition job it waits for. */
const SPEECH_POLL_MS = 1000;

export interface VideosState {
  seen: string[];
}

export interface VideoSource {
  channelVideos(
    ref: string,
    options: { type: (typeof CHANNEL_TABS)[number]; limit: number; signal?: AbortSignal },
  ): Promise<VideoIdLists>;
  playlistVideos(id: string, options: { limit: number; signal?: AbortSignal }): Promise<VideoIdLists>;
  video(videoId: string): Promise<VideoMetadata>;
}

export interface VideoCheckDeps {
  source: VideoSource;
  /** The transcript decision of GET /v1/transcript (captions, else a speech job), billed per transcript. */
  transcript(
    caller: { accountId: string; requestId: string },
    ref: MediaRef,
    ask: { mode: TranscriptMode; lang?: string; text: boolean },
  ): Promise<TranscriptOutcome>;
  /** The recognised reference of a video URL (for the transcript). */
  recognise(url: string): Promise<MediaRef>;
  /** A speech job's end: its poll answer once it is over, or null while it runs. */
  jobAnswer(accountId: string, jobId: string): Promise<Record<string, unknown> | null>;
}

export interface VideoCheckInput {
  kind: 'channel' | 'playlist';
  target: string;
  maxVideos: number;
  transcript?: { mode: TranscriptMode; lang?: string };
}

const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${id}`;

function listed(lists: VideoIdLists): string[] {
  return [...lists.videoIds, ...lists.shortIds, ...lists.liveIds];
}

export async function checkVideos(
  deps: VideoCheckDeps,
  input: VideoCheckInput,
  state: VideosState | null,
  ctx: CheckContext,
): Promise<CheckOutcome<VideosState>> {
  const ids =
    input.kind === 'channel'
      ? (
          await Promise.all(
            CHANNEL_TABS.map((type) =>
              deps.source.channelVideos(input.target, { type, limit: LISTED.channelTab, signal: ctx.signal }),
            ),
          )
        ).flatMap(listed)
      : listed(
          await deps.source.playlistVideos(input.target, { limit: LISTED.playlist, signal: ctx.signal }),
        );
  const unique = [...new Set(ids)];
  let cost = prices.syncRequest;
  if (!state) return { state: { seen: unique.slice(0, SEEN_KEPT) }, events: [], cost, baseline: true };

  const seen = new Set(state.seen);
  const fresh = unique.filter((id) => !seen.has(id)).slice(0, input.maxVideos);
  const events: NewMonitorEvent[] = [];
  for (const id of fresh) {
    ctx.signal.throwIfAborted();
    const video = await deps.source.video(id);
    cost += prices.syncRequest;
    const transcript = input.transcript ? await transcriptOf(deps, ctx, id, input.transcript) : undefined;
    events.push({
      type: 'video.new',
      dedupeKey: `video:${id}`,
      data: { videoId: id, url: watchUrl(id), video, ...(transcript && { transcript }) },
    });
  }
  // Newest first: what this check reported, then what was seen before; what it left waits.
  const kept = [...fresh, ...state.seen.filter((id) => !fresh.includes(id))];
  return { state: { seen: kept.slice(0, SEEN_KEPT) }, events, cost, baseline: false };
}

/**
 * A new video's transcript, paid at the transcript's own price. A speech job is waited for (within
 * the check's time); a transcript that cannot be had is reported as such, not as a failed check.
 */
async function transcriptOf(
  deps: VideoCheckDeps,
  ctx: CheckContext,
  videoId: string,
  ask: { mode: TranscriptMode; lang?: string },
): Promise<Record<string, unknown>> {
  try {
    const ref = await deps.recognise(watchUrl(videoId));
    const outcome = await deps.transcript({ accountId: ctx.accountId, requestId: newId('req') }, ref, {
      mode: ask.mode,
      text: true,
      ...(ask.lang && { lang: ask.lang }),
    });
    if (outcome.kind === 'captions') return { ...outcome.transcript, source: 'captions' };
    for (;;) {
      const answer = await deps.jobAnswer(ctx.accountId, outcome.jobId);
      if (answer) return { ...answer, source: 'speech', jobId: outcome.jobId };
      await sleep(SPEECH_POLL_MS, ctx.signal);
    }
  } catch (err) {
    ctx.signal.throwIfAborted();
    const e = err as { code?: string; message?: string };
    return { error: e.code ?? 'internal_error', message: e.message ?? 'transcript failed' };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
