// YouTube's player side: transcripts (the universal GET /v1/transcript for its
// URLs, and the platform twin) and video metadata, 1 credit each. /v1/youtube/* are aliases.
import { Type } from '@sinclair/typebox';
import { prices } from '../../billing/prices.js';
import { AppError, invalid } from '../../errors.js';
import { mcpTool, WAIT_NOTE } from '../../mcp/tools.js';
import { TRANSCRIPT_KIND, transcriptPoll } from '../../media/transcript-job.js';
import type { MediaRef } from '../../sources/platform.js';
import { parseVideoId } from '../../sources/youtube/ids.js';
import { aliasedGet } from '../alias-route.js';
import { answerBodies } from '../answer-body.js';
import type { HttpContext } from '../context.js';
import { pollRoute } from '../job-route.js';
import { principal } from '../plugins/auth.js';
import { paidAnswer, sendCharged } from '../plugins/billing.js';
import { errorResponses, Nullable, StringEnum } from '../schemas/common.js';
import { answerTranscript } from '../transcript-answer.js';
import type { RoutePlugin } from '../typed.js';

const TranscriptChunk = Type.Object({
  text: Type.String(),
  offset: Type.Integer({ description: 'Start, in ms' }),
  duration: Type.Integer({ description: 'In ms' }),
  lang: Type.String(),
  chapter: Type.Optional(
    Nullable(
      Type.String({
        description:
          'With chapters=true, on the video-sharing platform only: the title of the chapter the chunk starts in; null when the video has no chapters or the chunk comes before the first',
      }),
    ),
  ),
});

const VideoChapter = Type.Object({
  title: Type.String(),
  startMs: Type.Integer({ description: 'Start, in ms' }),
  endMs: Type.Integer({ description: "The next chapter's start; the last ends at the video's duration" }),
});

export const Transcript = Type.Object(
  {
    content: Type.Union([Type.String(), Type.Array(TranscriptChunk)], {
      description:
        'One string with text=true (with chapters=true: each chapter as its title on a line of its own, then its text; a blank line between chapters), else chunks',
    }),
    lang: Type.String({ description: 'The language returned' }),
    availableLangs: Type.Array(Type.String(), { description: 'The native caption languages' }),
  },
  { $id: 'Transcript', title: 'Transcript' },
);

export const VideoMetadata = Type.Object(
  {
    id: Type.String(),
    title: Nullable(Type.String()),
    description: Nullable(Type.String()),
    duration: Nullable(Type.Integer({ description: 'Seconds; null while live' })),
    channel: Type.Object({ id: Nullable(Type.String()), name: Nullable(Type.String()) }),
    tags: Type.Array(Type.String()),
    thumbnail: Nullable(Type.String()),
    uploadDate: Nullable(Type.String({ description: 'ISO 8601 date-time (UTC)' })),
    viewCount: Nullable(Type.Integer()),
    likeCount: Nullable(Type.Integer({ description: 'null when hidden or not shown to us' })),
    isLive: Type.Boolean({ description: 'Broadcasting live now' }),
    transcriptLanguages: Type.Array(Type.String(), { description: 'Native caption languages' }),
    chapters: Type.Array(VideoChapter, {
      description:
        "In order: the uploader's chapters as the watch page marks them, else the description's timestamps (by the platform's rules: from 0:00, rising, at least three, each at least 10 s), else the platform's automatic chapters (its key moments, which may start after 0:00); [] when none, and while live",
    }),
  },
  { $id: 'VideoMetadata', title: 'VideoMetadata' },
);

const Lang = Type.String({
  pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$',
  maxLength: 35,
  description:
    'Preferred language (e.g. en, pt-BR): a native track, else a translation, else the original; for speech recognition, the language the recogniser is told to expect',
  examples: ['en'],
});

const TranscriptOptions = {
  lang: Type.Optional(Lang),
  text: Type.Boolean({ default: false, description: 'One string instead of chunks' }),
  chunkSize: Type.Optional(
    Type.Integer({
      minimum: 50,
      maximum: 10_000,
      description: 'Most characters per chunk (50–10000); unset: the caption cues as they are',
    }),
  ),
  chapters: Type.Boolean({
    default: false,
    description:
      "Captions of the video-sharing platform: each chunk says its chapter (chunkSize merges within a chapter only) and text=true puts each chapter's title before its text. Elsewhere, and for speech recognition, no chapter fields",
  }),
  mode: StringEnum(['native', 'auto', 'generate'] as const, {
    default: 'auto',
    description:
      'native: existing captions only; auto: captions, else speech recognition (also when the platform refuses the caption request but its media can be fetched); generate: speech recognition',
  }),
};

const SpeechJob = Type.Object(
  { jobId: Type.String() },
  { description: 'Speech recognition runs as a job: poll GET /v1/transcript/{jobId}' },
);

const VideoRef = Type.String({ minLength: 1, maxLength: 2048 });

/** The one video reference among parameters that name the same thing in different ways. */
function oneVideoRef<K extends string>(
  query: Partial<Record<K, string>>,
  names: readonly [K, ...K[]],
): string {
  let first: { name: K; value: string } | undefined;
  let second: { name: K; value: string } | undefined;
  for (const name of names) {
    const value = query[name];
    if (typeof value !== 'string') continue;
    if (first) second ??= { name, value };
    else first = { name, value };
  }
  if (!first) {
    const others = names.length > 1 ? ` (or ${names.slice(1).join(', ')})` : '';
    throw new AppError(
      'invalid_request',
      `Missing required query parameter '${names[0]}'${others}`,
      names[0],
    );
  }
  if (second) throw invalid(second.name, `give only one of ${names.join(', ')}`);
  const id = parseVideoId(first.value);
  if (!id) throw invalid(first.name, 'not a video id or URL of the video-sharing platform');
  return id;
}

type YouTubeDeps = Pick<
  HttpContext,
  'youtube' | 'platforms' | 'transcripts' | 'translations' | 'charges' | 'jobs' | 'config'
>;

export const youtubeRoutes: RoutePlugin<YouTubeDeps> = async (app, deps) => {
  const { youtube, platforms, transcripts, translations, charges } = deps;
  app.addSchema(Transcript);
  app.addSchema(VideoMetadata);
  const sendVideo = answerBodies();
  // One per route: each compiles its own serializer.
  const [sendTranscript, sendYouTubeTranscript] = [answerBodies(), answerBodies()];
  const transcriptErrors = errorResponses(400, 401, 402, 403, 404, 429, 502, 503);

  app.get(
    '/v1/transcript',
    {
      schema: {
        tags: ['Videos'],
        operationId: 'transcript',
        'x-job-kind': TRANSCRIPT_KIND,
        ...mcpTool({
          name: 'transcript',
          description:
            "A video's transcript from its URL (on a platform its `url` input lists, or a media file). " +
            'Native captions answer at once; without them (mode auto or generate) ' +
            `speech recognition runs as a job. ${WAIT_NOTE} text=true gives one plain string.`,
          wait: true,
        }),
        summary: "A video's transcript from its URL",
        description:
          `Any supported platform: ${platforms.described}. ` +
          'Native captions answer 200. With no captions, `mode=native` answers 404 `transcript_unavailable`; ' +
          '`auto` and `generate` hand the media to speech recognition (202 `{jobId}`; 503 `provider_unavailable` ' +
          'while none is configured).',
        querystring: Type.Object({
          url: Type.String({
            minLength: 1,
            maxLength: 4096,
            description: `The video (or media file) URL: ${platforms.described}`,
          }),
          ...TranscriptOptions,
        }),
        response: { 200: Type.Ref('Transcript'), 202: SpeechJob, ...transcriptErrors },
      },
    },
    async (request, reply) =>
      answerTranscript(
        transcripts,
        request,
        reply,
        await platforms.recognise(request.query.url),
        request.query,
        sendTranscript,
      ),
  );

  aliasedGet(
    app,
    ['/v1/vidsite/transcript', '/v1/youtube/transcript'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'vidsiteTranscript',
        summary: "A video's transcript by URL or id",
        description: 'Exactly one of `url`, `videoId` or `id`; otherwise as `GET /v1/transcript`.',
        querystring: Type.Object({
          url: Type.Optional(VideoRef),
          videoId: Type.Optional(VideoRef),
          id: Type.Optional(VideoRef),
          ...TranscriptOptions,
        }),
        response: { 200: Type.Ref('Transcript'), 202: SpeechJob, ...transcriptErrors },
      },
    },
    async (request, reply) => {
      const id = oneVideoRef(request.query, ['url', 'videoId', 'id']);
      const ref: MediaRef = { platform: 'youtube', id, url: `https://www.youtube.com/watch?v=${id}` };
      return answerTranscript(transcripts, request, reply, ref, request.query, sendYouTubeTranscript);
    },
  );

  aliasedGet(
    app,
    ['/v1/vidsite/video', '/v1/youtube/video'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'video',
        ...mcpTool({
          name: 'video',
          description:
            "A video-sharing-site video's metadata by id or URL: title, channel, counts, tags, duration.",
        }),
        summary: "A video's metadata",
        description:
          'Every field is present, null when the platform does not show it. Age-restricted and ' +
          'members-only videos the platform still describes answer 200.',
        querystring: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 2048, description: 'A video id or URL' }),
        }),
        response: { 200: Type.Ref('VideoMetadata'), ...errorResponses(400, 401, 402, 404, 429, 502) },
      },
    },
    async (request, reply) => {
      const id = oneVideoRef(request.query, ['id']);
      const video = await paidAnswer(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'video', description: 'Video metadata' },
        () => youtube.peekVideo(id),
        () => youtube.video(id),
      );
      return sendVideo(reply, video);
    },
  );

  aliasedGet(
    app,
    ['/v1/vidsite/transcript/translate', '/v1/youtube/transcript/translate'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'translate',
        summary: "A video's transcript translated into `lang`",
        description:
          "Exactly one of `url`, `videoId` or `id`. The platform's own translation of the captions (1 credit); " +
          'where it has none and a language model is configured, the captions translated by the model, cue ' +
          'by cue with their timing kept (1 credit + 2 per model call of up to 4,000 characters); otherwise ' +
          '404 `transcript_unavailable`. `X-Translated-By` says which. The model has one time budget for all ' +
          "its calls (the server's UNFURL_AI_TIMEOUT_MS): a translation it does not finish in time answers " +
          '503 `provider_unavailable` and costs 2 credits per model call made (the message says how many); ' +
          'one whose calls would plainly take longer, going by how long calls have taken lately, is refused ' +
          'up front with 413 `payload_too_large`, at no cost.',
        querystring: Type.Object({
          url: Type.Optional(VideoRef),
          videoId: Type.Optional(VideoRef),
          id: Type.Optional(VideoRef),
          lang: Lang,
          text: TranscriptOptions.text,
          chunkSize: TranscriptOptions.chunkSize,
        }),
        response: { 200: Type.Ref('Transcript'), ...transcriptErrors, ...errorResponses(413) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const videoId = oneVideoRef(q, ['url', 'videoId', 'id']);
      const caller = { accountId: principal(request).accountId, requestId: request.id };
      const outcome = await translations.translate(caller, videoId, q);
      sendCharged(reply, outcome.charged, outcome.remaining);
      reply.header('X-Translated-By', outcome.by);
      return outcome.transcript;
    },
  );

  pollRoute(app, deps, {
    path: '/v1/transcript/:jobId',
    kinds: [TRANSCRIPT_KIND],
    poll: transcriptPoll,
    operationId: 'transcriptPoll',
    summary: 'Poll a transcript job',
  });
};
