// One JSON answer from a language model, checked: the request is sent, its answer parsed (a
// Markdown fence around it tolerated) and checked; a wrong one gets one repair round in which the
// model sees its answer and what is wrong with it, then the call fails naming the problems.
import { permanent } from '../../errors.js';
import { type ChatMessage, type ChatRequest, chat } from '../ai/chat.js';
import type { AiClient, CallOptions } from '../ai/client.js';

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  // Some servers wrap JSON in a Markdown fence even when asked for JSON.
  const bare = text.replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    return { ok: true, value: JSON.parse(bare) };
  } catch (err) {
    return { ok: false, error: `not valid JSON (${(err as Error).message.slice(0, 120)})` };
  }
}

/** The accepted value of `request`'s answer; `check` lists what is wrong with a value ([] if nothing). */
export async function askWithRepair<T>(
  client: AiClient,
  request: ChatRequest,
  check: (value: unknown) => string[],
  what: string,
  opts: CallOptions,
): Promise<T> {
  const messages: ChatMessage[] = [...request.messages];
  let problems: string[] = [];
  for (let round = 0; round < 2; round++) {
    const text = await chat(client, { ...request, messages }, opts);
    const parsed = parseJson(text);
    problems = parsed.ok ? check(parsed.value) : [parsed.error];
    if (problems.length === 0 && parsed.ok) return parsed.value as T;
    messages.push(
      { role: 'assistant', content: text },
      {
        role: 'user',
        content: `That answer is not valid: ${problems.join('; ')}. Answer again with only the corrected JSON.`,
      },
    );
  }
  throw permanent(
    `The model's ${what} was still invalid after a repair round: ${problems.slice(0, 5).join('; ')}`,
    'upstream_error',
  );
}
