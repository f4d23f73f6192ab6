// Video AI commands (jobs): on-screen text (OCR), a description, and structured extraction. Each
// submits the job, waits for it (a spinner on a terminal) and prints the result.
import fs from 'node:fs';
import type { CommandContext, CommandSpec } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { line, printJson } from '../output.js';
import { answeredJobId, WAIT_HELP, WAIT_OPTIONS, waitWithSpinner } from '../wait.js';
import { clock } from './video.js';

const WEBHOOK = { webhook: { type: 'string' } } as const;
const WEBHOOK_HELP = '  --webhook URL      also call this URL when the job ends (signed; see README)';

function oneOf<T extends string>(ctx: CommandContext, name: string, allowed: readonly T[]): T | undefined {
  const v = ctx.string(name);
  if (v !== undefined && !allowed.includes(v as T))
    throw new UsageError(`--${name}: one of ${allowed.join(', ')}`);
  return v as T | undefined;
}

export const ocr: CommandSpec = {
  name: 'ocr',
  summary: "a video's on-screen text, with times",
  usage: 'URL [--format json|text|srt|vtt]',
  details: `  --format F         how the server renders the text: json (default: timed lines), text, srt, vtt
${WEBHOOK_HELP}
${WAIT_HELP}`,
  options: { format: { type: 'string' }, ...WEBHOOK, ...WAIT_OPTIONS },
  positionals: [1, 1],
  async run(ctx) {
    const format = oneOf(ctx, 'format', ['json', 'text', 'srt', 'vtt'] as const);
    const client = ctx.client({ requireKey: true });
    const { jobId } = await client.video.ocr(
      { url: ctx.positionals[0]!, format, webhookUrl: ctx.string('webhook') },
      ctx,
    );
    if (answeredJobId(ctx, jobId)) return 0;
    const done = await waitWithSpinner(ctx, jobId, 'ocr');
    if (ctx.output.json) printJson(ctx.output, { jobId, ...done });
    else if (format && format !== 'json' && done.content !== null) ctx.output.out.write(done.content);
    else
      for (const seg of done.text ?? [])
        line(ctx.output, `[${clock(seg.startMs)}–${clock(seg.endMs)}] ${seg.text}`);
    return 0;
  },
};

export const describe: CommandSpec = {
  name: 'describe',
  summary: 'what a video shows, described by an AI model from its frames',
  usage: 'URL [--prompt TEXT] [--max-frames N] [--max-resolution PX] [--include-transcript]',
  details: `  --prompt TEXT         what to look for or how to describe it
  --max-frames N        frames to look at (1–20, default 8; costs 5 + frames)
  --max-resolution PX   longest frame side (64–2048, default 512)
  --include-transcript  give the model the transcript too
  --mode describe|ocr   describe (default) or read the text in the frames
${WEBHOOK_HELP}
${WAIT_HELP}`,
  options: {
    prompt: { type: 'string' },
    'max-frames': { type: 'string' },
    'max-resolution': { type: 'string' },
    'include-transcript': { type: 'boolean' },
    mode: { type: 'string' },
    ...WEBHOOK,
    ...WAIT_OPTIONS,
  },
  positionals: [1, 1],
  async run(ctx) {
    const client = ctx.client({ requireKey: true });
    const { jobId } = await client.video.describe(
      {
        url: ctx.positionals[0]!,
        mode: oneOf(ctx, 'mode', ['describe', 'ocr'] as const),
        prompt: ctx.string('prompt'),
        maxFrames: ctx.int('max-frames', 1, 20),
        maxResolution: ctx.int('max-resolution', 64, 2048),
        includeTranscript: ctx.values['include-transcript'] === true ? true : undefined,
        webhookUrl: ctx.string('webhook'),
      },
      ctx,
    );
    if (answeredJobId(ctx, jobId)) return 0;
    const done = await waitWithSpinner(ctx, jobId, 'describe');
    if (ctx.output.json) printJson(ctx.output, { jobId, ...done });
    else if (typeof done.data?.description === 'string') line(ctx.output, done.data.description);
    else line(ctx.output, JSON.stringify(done.data, null, 2));
    return 0;
  },
};

/** --schema: inline JSON, or @file / a path to a JSON file. */
function readSchema(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let text = raw.trim();
  if (!text.startsWith('{')) {
    const file = text.startsWith('@') ? text.slice(1) : text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`--schema: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err})`);
    }
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`--schema: not a JSON object (${(err as Error).message})`);
  }
}

export const extract: CommandSpec = {
  name: 'extract',
  summary: 'structured data from a video, by a prompt and/or a JSON schema',
  usage: 'URL (--prompt TEXT | --schema JSON|@FILE)',
  details: `  --prompt TEXT        what to extract
  --schema JSON|@FILE  the JSON schema the answer must follow (inline, or a file)
${WEBHOOK_HELP}
${WAIT_HELP}`,
  options: { prompt: { type: 'string' }, schema: { type: 'string' }, ...WEBHOOK, ...WAIT_OPTIONS },
  positionals: [1, 1],
  async run(ctx) {
    const prompt = ctx.string('prompt');
    const schema = readSchema(ctx.string('schema'));
    if (prompt === undefined && schema === undefined)
      throw new UsageError('give --prompt, --schema, or both');
    const client = ctx.client({ requireKey: true });
    const { jobId } = await client.extract(
      { url: ctx.positionals[0]!, prompt, schema, webhookUrl: ctx.string('webhook') },
      ctx,
    );
    if (answeredJobId(ctx, jobId)) return 0;
    const done = await waitWithSpinner(ctx, jobId, 'extract');
    if (ctx.output.json) printJson(ctx.output, { jobId, ...done });
    else line(ctx.output, JSON.stringify(done.data, null, 2));
    return 0;
  },
};
