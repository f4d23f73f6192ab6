// What a scrape asks the language model about a page (its `json` and `summary` formats): data by
// the caller's schema and/or prompt, or a short summary. The page goes in as Markdown, cut at the
// same length as a page monitor's extraction.

import { chat } from '../ai/chat.js';
import type { AiClient, CallOptions } from '../ai/client.js';
import { askWithRepair } from './ask-json.js';
import { extractWith, PAGE_SYSTEM, PAGE_TEXT_MAX } from './extract.js';
import type { JsonSchema } from './schema.js';

export interface PageJsonAsk {
  prompt: string | null;
  schema: JsonSchema | null;
}

const pageText = (markdown: string) => `Page:\n${markdown.slice(0, PAGE_TEXT_MAX)}`;

/** JSON from the page: following `schema` when given (checked), else an object answering `prompt`. */
export function pageJson(
  client: AiClient,
  ask: PageJsonAsk,
  markdown: string,
  opts: CallOptions,
): Promise<unknown> {
  const instruction = ask.schema
    ? `${ask.prompt ? `${ask.prompt}\n` : ''}Extract the data described by the JSON Schema of the answer from this page.`
    : `${ask.prompt}\nAnswer with one JSON object.`;
  const parts = [
    { type: 'text' as const, text: instruction },
    { type: 'text' as const, text: pageText(markdown) },
  ];
  if (ask.schema) return extractWith(client, ask.schema, PAGE_SYSTEM, parts, opts);
  return askWithRepair<unknown>(
    client,
    {
      messages: [
        { role: 'system', content: PAGE_SYSTEM },
        { role: 'user', content: parts },
      ],
      response_format: { type: 'json_object' },
      temperature: 0,
    },
    (value) => (value && typeof value === 'object' && !Array.isArray(value) ? [] : ['not a JSON object']),
    'answer',
    opts,
  );
}

const SUMMARY_SYSTEM =
  'You summarise web pages. Say what the page is and its main points in at most five sentences of plain ' +
  'prose, in the language of the page. Use only what the page says.';

/** A short summary of the page, in its own language. */
export async function pageSummary(client: AiClient, markdown: string, opts: CallOptions): Promise<string> {
  const text = await chat(
    client,
    {
      messages: [
        { role: 'system', content: SUMMARY_SYSTEM },
        { role: 'user', content: pageText(markdown) },
      ],
      temperature: 0,
      max_tokens: 600,
    },
    opts,
  );
  return text.trim();
}
