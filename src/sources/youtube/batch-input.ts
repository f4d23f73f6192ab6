// The body of the two batch jobs (POST /v1/vidsite/transcript/batch and …/video/batch):
// exactly one of `videoIds` (1–500 ids or URLs), `playlistId` or `channelId`; `limit` (1–1000,
// default 10) for a playlist or channel, or the first of videoIds; transcript batches also take `lang`, `text`, `chunkSize`.
// Checked here, before anything is held, into the job input the kinds run on.
import { type Static, Type } from '@sinclair/typebox';
import { AppError, invalid } from '../../errors.js';
import { parseChannelRef, parsePlaylistId, parseVideoId } from './ids.js';

export const BATCH_LIMITS = { videoIds: 500, limit: 1000, defaultLimit: 10, refLength: 2048 } as const;

const Ref = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: BATCH_LIMITS.refLength, description }));

const SourceFields = {
  videoIds: Type.Optional(
    Type.Array(Type.String(), {
      minItems: 1,
      maxItems: BATCH_LIMITS.videoIds,
      description: `Video ids or URLs (1–${BATCH_LIMITS.videoIds}); the same video twice counts once`,
    }),
  ),
  playlistId: Ref('A playlist id or URL: its first `limit` videos'),
  channelId: Ref(
    'A channel id, @handle or URL: its first `limit` videos (uploads first, then shorts and live, newest first)',
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: BATCH_LIMITS.limit,
      description: `Most videos taken from the playlist or channel (1–${BATCH_LIMITS.limit}, default ${BATCH_LIMITS.defaultLimit}), or the first of videoIds`,
    }),
  ),
};

export const VideoBatchBody = Type.Object(SourceFields);

export const TranscriptBatchBody = Type.Object({
  ...SourceFields,
  lang: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$',
      maxLength: 35,
      description:
        'Preferred language (e.g. en, pt-BR): a native track, else a translation, else the original',
    }),
  ),
  text: Type.Boolean({ default: false, description: 'Each transcript as one string instead of chunks' }),
  chunkSize: Type.Optional(
    Type.Integer({
      minimum: 50,
      maximum: 10_000,
      description: 'Most characters per chunk (50–10000); unset: the caption cues as they are',
    }),
  ),
});

export type VideoBatchBody = Static<typeof VideoBatchBody>;
export type TranscriptBatchBody = Static<typeof TranscriptBatchBody>;

/** Where the videos come from: the ids themselves, or a list the job resolves when it runs. */
export type BatchSource =
  | { videoIds: string[] }
  | { playlistId: string; limit: number }
  | { channelId: string; limit: number };

export interface TranscriptOptions {
  lang?: string;
  text: boolean;
  chunkSize?: number;
}

/** The input of a video_batch job. */
export type VideoBatchInput = BatchSource;
/** The input of a transcript_batch job. */
export type TranscriptBatchInput = BatchSource & TranscriptOptions;

const SOURCES = ['videoIds', 'playlistId', 'channelId'] as const;

/** The videos a batch names up front, or how many it may take from its list: what it can cost. */
export const batchSize = (source: BatchSource): number =>
  'videoIds' in source ? source.videoIds.length : source.limit;

/** The validated body's source, checked: ids parsed (duplicates dropped), one source, limit where it applies. */
export function batchSource(body: VideoBatchBody): BatchSource {
  const given = SOURCES.filter((name) => body[name] !== undefined);
  if (given.length === 0) {
    throw new AppError(
      'invalid_request',
      "Missing required body field 'videoIds' (or 'playlistId', or 'channelId')",
      'videoIds',
    );
  }
  if (given.length > 1) {
    throw invalid(given[1]!, `give exactly one of videoIds, playlistId or channelId (${given[0]} is given)`);
  }
  if (body.videoIds) {
    const ids: string[] = [];
    const seen = new Set<string>();
    body.videoIds.forEach((raw, i) => {
      const id = raw.length <= BATCH_LIMITS.refLength ? parseVideoId(raw) : null;
      if (!id) throw invalid(`videoIds[${i}]`, 'not a video id or URL of the video-sharing platform');
      if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    });
    // `limit` with videoIds takes the first ones (as the hosted API's SDKs send it).
    return { videoIds: body.limit !== undefined ? ids.slice(0, body.limit) : ids };
  }
  const limit = body.limit ?? BATCH_LIMITS.defaultLimit;
  if (body.playlistId !== undefined) {
    const id = parsePlaylistId(body.playlistId);
    if (!id) throw invalid('playlistId', 'not a playlist id or URL of the video-sharing platform');
    return { playlistId: id, limit };
  }
  const channel = body.channelId!.trim();
  if (!parseChannelRef(channel)) {
    throw invalid('channelId', 'not a channel id, @handle or URL of the video-sharing platform');
  }
  return { channelId: channel, limit };
}

export function videoBatchInput(body: VideoBatchBody): VideoBatchInput {
  return batchSource(body);
}

export function transcriptBatchInput(body: TranscriptBatchBody): TranscriptBatchInput {
  const options: TranscriptOptions = { text: body.text ?? false };
  if (body.lang !== undefined) options.lang = body.lang;
  if (body.chunkSize !== undefined) options.chunkSize = body.chunkSize;
  return { ...batchSource(body), ...options };
}
