// The vision request of describe: the caller's prompt (or ours), the transcript when asked for, and
// the key frames in order, each after its time — one chat completion, its text the description.

import type { TranscriptCue } from '../../sources/transcript.js';
import { type ChatMessage, chat } from '../ai/chat.js';
import type { AiClient, CallOptions } from '../ai/client.js';
import type { KeyFrame } from '../frames.js';
import { frameParts, transcriptText } from './context.js';

export const DEFAULT_DESCRIBE_PROMPT =
  'Describe what happens in this video: the setting, the people and objects, the actions and any text shown. ' +
  'Refer to moments by their time stamps.';

const SYSTEM =
  'You are shown frames sampled from one video, in order, each after a line giving its time (mm:ss). ' +
  'Answer from what the frames (and the transcript, when one is given) show; do not invent details.';

export function describeMessages(
  prompt: string | undefined,
  frames: readonly { timeMs: number }[],
  images: ChatMessage['content'],
  cues: readonly TranscriptCue[] | null,
): ChatMessage[] {
  const intro = [
    { type: 'text' as const, text: prompt?.trim() || DEFAULT_DESCRIBE_PROMPT },
    { type: 'text' as const, text: `The video, as ${frames.length} frame${frames.length === 1 ? '' : 's'}:` },
  ];
  const transcript = cues?.length
    ? [{ type: 'text' as const, text: `Transcript of its speech:\n${transcriptText(cues)}` }]
    : [];
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: [...intro, ...(images as []), ...transcript] },
  ];
}

export async function describeFrames(
  client: AiClient,
  input: {
    prompt?: string;
    frames: readonly KeyFrame[];
    maxResolution: number;
    cues: readonly TranscriptCue[] | null;
  },
  opts: CallOptions,
): Promise<string> {
  const detail = input.maxResolution <= 512 ? 'low' : 'auto';
  const images = await frameParts(input.frames, detail);
  return chat(
    client,
    { messages: describeMessages(input.prompt, input.frames, images, input.cues), max_tokens: 1500 },
    opts,
  );
}
