// Chat completions (vision and extraction): the request shapes we send and the one answer we read.
import { permanent } from '../../errors.js';
import type { AiClient, CallOptions } from './client.js';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ContentPart[];
}

export interface ChatRequest {
  messages: ChatMessage[];
  response_format?:
    | { type: 'json_object' }
    | { type: 'json_schema'; json_schema: { name: string; schema: unknown; strict: boolean } };
  max_tokens?: number;
  temperature?: number;
}

interface ChatAnswer {
  choices?: Array<{
    finish_reason?: string;
    message?: { content?: string | null; refusal?: string | null };
  }>;
}

/** The text of the first choice; a refusal, a cut-off or an empty answer fails the job clearly. */
export async function chat(client: AiClient, request: ChatRequest, opts: CallOptions): Promise<string> {
  const answer = await client.postJson<ChatAnswer>(
    '/chat/completions',
    { model: client.model, ...request },
    opts,
  );
  const choice = answer.choices?.[0];
  const message = choice?.message;
  if (message?.refusal) {
    throw permanent(`The ${client.task} model refused: ${message.refusal.slice(0, 300)}`, 'upstream_error');
  }
  if (choice?.finish_reason === 'length') {
    throw permanent(`The ${client.task} model's answer was cut off (too long)`, 'upstream_error');
  }
  const content = typeof message?.content === 'string' ? message.content.trim() : '';
  if (!content) throw permanent(`The ${client.task} model gave an empty answer`, 'upstream_error');
  return content;
}
