// Video commands: a transcript (waiting when speech recognition runs as a job) and video metadata.
import { isJobAccepted, type Transcript, type TranscriptMode } from '@unfurl/sdk';
import type { CommandContext, CommandSpec } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { fields, line, printJson } from '../output.js';
import { answeredJobId, WAIT_HELP, WAIT_OPTIONS, waitWithSpinner } from '../wait.js';

const MODES: readonly TranscriptMode[] = ['native', 'auto', 'generate'];

/** 83_456 ms → "1:23", or "1:02:03" past the hour. */
export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  const parts = hms[0] ? hms : hms.slice(1);
  return parts.map((n, i) => (i === 0 ? String(n) : String(n).padStart(2, '0'))).join(':');
}

function printTranscript(ctx: CommandContext, t: Transcript) {
  if (ctx.output.json) return printJson(ctx.output, t);
  if (typeof t.content === 'string') return line(ctx.output, t.content);
  for (const chunk of t.content) line(ctx.output, `[${clock(chunk.offset)}] ${chunk.text}`);
}

export const transcript: CommandSpec = {
  name: 'transcript',
  summary: "a video's transcript (timestamped lines; --text for plain text)",
  usage: 'URL [--lang LANG] [--text] [--chunk-size N] [--mode native|auto|generate]',
  details: `  --lang LANG        preferred language (the answer says which one it is)
  --text             one plain text instead of timestamped chunks
  --chunk-size N     merge captions up to N characters (50–10000)
  --mode MODE        native (captions only), auto (default: captions, else speech recognition), generate
${WAIT_HELP}`,
  options: {
    lang: { type: 'string' },
    text: { type: 'boolean' },
    'chunk-size': { type: 'string' },
    mode: { type: 'string' },
    ...WAIT_OPTIONS,
  },
  positionals: [1, 1],
  async run(ctx) {
    const mode = ctx.string('mode');
    if (mode !== undefined && !MODES.includes(mode as TranscriptMode)) {
      throw new UsageError('--mode: one of native, auto, generate');
    }
    const answer = await ctx.client({ requireKey: true }).transcript(
      {
        url: ctx.positionals[0]!,
        lang: ctx.string('lang'),
        text: ctx.values.text === true ? true : undefined,
        chunkSize: ctx.int('chunk-size', 50, 10_000),
        mode: mode as TranscriptMode | undefined,
      },
      ctx,
    );
    if (!isJobAccepted(answer)) {
      printTranscript(ctx, answer);
      return 0;
    }
    if (answeredJobId(ctx, answer.jobId)) return 0;
    const done = await waitWithSpinner(ctx, answer.jobId, 'transcript');
    if (done.data) printTranscript(ctx, done.data);
    return 0;
  },
};

export const video: CommandSpec = {
  name: 'video',
  summary: "a video's metadata, by id or URL",
  usage: 'ID',
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    const v = await ctx.client({ requireKey: true }).vidsite.video(ctx.positionals[0]!, ctx);
    if (ctx.output.json) {
      printJson(ctx.output, v);
      return 0;
    }
    fields(ctx.output, [
      ['id', v.id],
      ['title', v.title],
      ['channel', v.channel ? `${v.channel.name ?? '-'} (${v.channel.id ?? '-'})` : null],
      ['duration', v.duration === null ? null : clock(v.duration * 1000)],
      ['uploaded', v.uploadDate],
      ['views', v.viewCount],
      ['likes', v.likeCount],
      ['live', v.isLive],
      ['tags', v.tags?.join(', ') || null],
      ['transcripts', v.transcriptLanguages?.join(', ') || null],
      ['thumbnail', v.thumbnail],
    ]);
    if (v.description) {
      line(ctx.output);
      line(ctx.output, v.description);
    }
    return 0;
  },
};
