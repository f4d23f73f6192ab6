// Structured extraction with a language model: the video's transcript and key frames in, JSON that
// matches a schema out. With no schema the model first proposes one (its own call). Every answer is
// checked with ajv; a wrong one gets one repair round with the errors, then the job fails clearly.
import type { ContentPart } from '../ai/chat.js';
import type { AiClient, CallOptions } from '../ai/client.js';
import { askWithRepair } from './ask-json.js';
import {
  type JsonSchema,
  normaliseSchema,
  schemaProblem,
  strictCompatible,
  validateAgainst,
} from './schema.js';

export interface ExtractContext {
  prompt?: string;
  /** "[mm:ss] text" lines, or null without a transcript. */
  transcript: string | null;
  /** Frame parts (text + image), possibly none. */
  frames: ContentPart[];
}

const SYSTEM =
  'You extract structured data from a video, given its transcript and frames sampled from it in order. ' +
  'Use only what the video shows or says; use null where the video does not tell.';

function videoParts(ctx: ExtractContext): ContentPart[] {
  return [
    ...(ctx.transcript ? [{ type: 'text' as const, text: `Transcript:\n${ctx.transcript}` }] : []),
    ...(ctx.frames.length ? [{ type: 'text' as const, text: 'Frames:' }, ...ctx.frames] : []),
  ];
}

/** A JSON Schema (type object) for what `prompt` asks, proposed by the model from the video. */
export function proposeSchema(client: AiClient, ctx: ExtractContext, opts: CallOptions): Promise<JsonSchema> {
  const ask =
    `${ctx.prompt ? `The user wants: ${ctx.prompt}\n` : ''}` +
    'Propose a JSON Schema (draft 2020-12) for the data to extract from this video: "type": "object" at the ' +
    'top, with "properties", "required" and a short "description" for each field. Answer with the schema only.';
  return askWithRepair<JsonSchema>(
    client,
    {
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: [{ type: 'text', text: ask }, ...videoParts(ctx)] },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
    },
    (value) => {
      const problem = schemaProblem(value);
      return problem ? [`the schema ${problem}`] : [];
    },
    'schema',
    opts,
  );
}

/** Data matching `schema`, extracted from the video. */
export function extractData(
  client: AiClient,
  schema: JsonSchema,
  ctx: ExtractContext,
  opts: CallOptions,
): Promise<unknown> {
  const ask = `${ctx.prompt ? `${ctx.prompt}\n` : ''}Extract the data described by the JSON Schema of the answer.`;
  return extractWith(client, schema, SYSTEM, [{ type: 'text', text: ask }, ...videoParts(ctx)], opts);
}

export const PAGE_SYSTEM =
  'You extract structured data from a web page, given as Markdown. Use only what the page says; use null ' +
  'where the page does not tell.';
/** The most of a page's text sent to the model (its start: the main content comes first). */
export const PAGE_TEXT_MAX = 60_000;

/** Data matching `schema`, extracted from a web page's Markdown (a page monitor's fields). */
export function extractFromPage(
  client: AiClient,
  schema: JsonSchema,
  markdown: string,
  opts: CallOptions,
): Promise<unknown> {
  const parts: ContentPart[] = [
    { type: 'text', text: 'Extract the data described by the JSON Schema of the answer from this page.' },
    { type: 'text', text: `Page:\n${markdown.slice(0, PAGE_TEXT_MAX)}` },
  ];
  return extractWith(client, schema, PAGE_SYSTEM, parts, opts);
}

/** One extraction: the schema as the answer's format (strict where it can be), the answer checked. */
export function extractWith(
  client: AiClient,
  schema: JsonSchema,
  system: string,
  parts: ContentPart[],
  opts: CallOptions,
): Promise<unknown> {
  const sent = normaliseSchema(schema);
  return askWithRepair<unknown>(
    client,
    {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: parts },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'extraction', schema: sent, strict: strictCompatible(sent) },
      },
      temperature: 0,
    },
    (value) => validateAgainst(schema, value),
    'answer',
    opts,
  );
}
