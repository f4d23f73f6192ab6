// Transcript translation (GET /v1/youtube/transcript/translate): the platform's own translation of
// a video's captions when it has one (one request's price); otherwise, when a language model is
// configured, the original captions translated cue by cue (1 + 2 credits per model call, counted
// and held before any call); otherwise 404 transcript_unavailable. Knows nothing of HTTP.
import { prices } from '../billing/prices.js';
import type { RequestCharges } from '../billing/request-charges.js';
import { AppError } from '../errors.js';
import type { NativeTranscript, Transcript } from '../sources/transcript.js';
import { shapeTranscript } from '../sources/transcript.js';
import type { YouTube } from '../sources/youtube/service.js';
import { budget } from './ai/budget.js';
import type { AiClient } from './ai/client.js';
import { translateCues, translationCalls } from './llm/translate.js';
import type { TranscriptCaller } from './transcripts.js';

export interface TranslationAsk {
  lang: string;
  text?: boolean;
  chunkSize?: number;
}

export interface TranslationOutcome {
  transcript: Transcript;
  /** Who translated: the platform, or the language model. */
  by: 'platform' | 'model';
  charged: number;
  remaining: number;
}

export interface TranslationDeps {
  youtube: Pick<YouTube, 'translatedTranscript' | 'transcript'>;
  charges: Pick<RequestCharges, 'charge' | 'whileSizing'>;
  llm: AiClient;
  /** How long the model may take for one request, all calls together. */
  modelBudgetMs: number;
}

const unavailable = (err: unknown) => err instanceof AppError && err.code === 'transcript_unavailable';

export class TranscriptTranslations {
  constructor(private readonly deps: TranslationDeps) {}

  async translate(
    caller: TranscriptCaller,
    videoId: string,
    ask: TranslationAsk,
  ): Promise<TranslationOutcome> {
    const { youtube, charges, llm } = this.deps;
    const shape = (native: NativeTranscript) =>
      shapeTranscript(native, { text: ask.text, chunkSize: ask.chunkSize });
    try {
      const cost = prices.syncRequest;
      const { result, remaining } = await charges.charge(
        {
          accountId: caller.accountId,
          requestId: caller.requestId,
          cost,
          description: 'Transcript translation',
          operation: 'translate',
        },
        async () => shape(await youtube.translatedTranscript(videoId, ask.lang)),
      );
      return { transcript: result, by: 'platform', charged: cost, remaining };
    } catch (err) {
      if (!unavailable(err) || !llm.configured) throw err;
    }
    // The platform will not translate: the original captions, sized under a hold, then the model.
    const original = await charges.whileSizing(caller.accountId, caller.requestId, () =>
      youtube.transcript(videoId, { mode: 'native' }),
    );
    const cost = prices.syncRequest + prices.translationPerModelCall * translationCalls(original.cues);
    const { result, remaining } = await charges.charge(
      {
        accountId: caller.accountId,
        requestId: `${caller.requestId}_model`,
        cost,
        description: 'Transcript translation (model)',
        operation: 'translate',
      },
      async () => {
        const cues = await translateCues(llm, original.cues, {
          to: ask.lang,
          from: original.lang,
          budget: budget(this.deps.modelBudgetMs),
          signal: AbortSignal.timeout(this.deps.modelBudgetMs),
        });
        return shape({ ...original, cues, lang: ask.lang });
      },
    );
    return { transcript: result, by: 'model', charged: cost, remaining };
  }
}
