// Transcript translation (GET /v1/youtube/transcript/translate): the platform's own translation of
// a video's captions when it has one (one request's price); otherwise, when a language model is
// configured, the original captions translated cue by cue (1 + 2 credits per model call, counted
// and held before any call); otherwise 404 transcript_unavailable. Knows nothing of HTTP.
//
// The model run is synchronous, bounded by one time budget (UNFURL_AI_TIMEOUT_MS) for all its calls.
// The operator pays for every call sent, so a run that fails or runs out of time is not free: it is
// charged 2 credits per call started (not the base price), and running out of time is a 503
// provider_unavailable. A run that would plainly not fit the budget (its calls times how long a call
// has taken lately) is refused before any hold or call (413), so that it is not paid for in vain.
import { prices } from '../billing/prices.js';
import type { RequestCharges } from '../billing/request-charges.js';
import { AppError } from '../errors.js';
import type { NativeTranscript, Transcript, TranscriptCue } from '../sources/transcript.js';
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
  charges: Pick<RequestCharges, 'charge' | 'chargeSpent' | 'whileSizing'>;
  llm: AiClient;
  /** How long the model may take for one request, all calls together. */
  modelBudgetMs: number;
}

const unavailable = (err: unknown) => err instanceof AppError && err.code === 'transcript_unavailable';

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** After this long without a call, what was seen of the model is forgotten (it may have changed). */
const FORGET_AFTER_MS = 10 * 60_000;

/** How long one model call of a translation has taken lately in this process: a moving average. */
export class CallTimes {
  private averageMs: number | null = null;
  private at = 0;

  constructor(private readonly now: () => number = Date.now) {}

  observe(ms: number): void {
    const before = this.estimateMs();
    this.averageMs = before === null ? ms : 0.7 * before + 0.3 * ms;
    this.at = this.now();
  }

  /** null before any call was seen (or long after the last): then there is nothing to go by. */
  estimateMs(): number | null {
    return this.averageMs !== null && this.now() - this.at <= FORGET_AFTER_MS ? this.averageMs : null;
  }
}

export class TranscriptTranslations {
  /** What the model's calls have taken lately: the estimate a long translation is refused on. */
  readonly callTimes = new CallTimes();

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
    const calls = translationCalls(original.cues);
    this.refuseIfTooSlow(calls);
    const used = { calls: 0 };
    const cost = prices.syncRequest + prices.translationPerModelCall * calls;
    const { result, remaining } = await charges.chargeSpent(
      {
        accountId: caller.accountId,
        requestId: `${caller.requestId}_model`,
        cost,
        description: 'Transcript translation (model)',
        operation: 'translate',
      },
      async () => {
        const cues = await this.modelCues(original, ask.lang, calls, used);
        return shape({ ...original, cues, lang: ask.lang });
      },
      // A failed run pays for the calls it sent (the operator paid for them), not the base price.
      () => prices.translationPerModelCall * used.calls,
    );
    return { transcript: result, by: 'model', charged: cost, remaining };
  }

  /** 413 when `calls` model calls would plainly take longer than the budget, going by recent calls. */
  private refuseIfTooSlow(calls: number): void {
    const perCall = this.callTimes.estimateMs();
    const budgetMs = this.deps.modelBudgetMs;
    if (perCall === null || calls * perCall <= budgetMs) return;
    throw new AppError(
      'payload_too_large',
      `Translating this transcript takes ${calls} language-model calls; at about ${seconds(perCall)} each, ` +
        `as the model has answered lately, that is about ${seconds(calls * perCall)}, more than the ` +
        `${seconds(budgetMs)} a request may take (UNFURL_AI_TIMEOUT_MS). Nothing was charged`,
    );
  }

  /** The cues translated by the model within the budget; `used.calls` counts the calls started. */
  private async modelCues(
    original: NativeTranscript,
    to: string,
    calls: number,
    used: { calls: number },
  ): Promise<TranscriptCue[]> {
    const budgetMs = this.deps.modelBudgetMs;
    const runBudget = budget(budgetMs);
    // What the caller is told when time runs out: the provider did not answer in time (503).
    const timeUp = () =>
      new AppError(
        'provider_unavailable',
        `The language model provider did not answer within this request's time budget ` +
          `(${seconds(budgetMs)}, UNFURL_AI_TIMEOUT_MS): ${used.calls} of ${calls} model calls were made, ` +
          `and are charged (${prices.translationPerModelCall * used.calls} credits)`,
      );
    // Its own signal, whose reason is that 503: a bare timeout reason would reach the caller as a 500.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(timeUp()), budgetMs);
    let inFlightSince: number | null = null;
    try {
      return await translateCues(this.deps.llm, original.cues, {
        to,
        from: original.lang,
        budget: runBudget,
        signal: deadline.signal,
        onCall: () => {
          used.calls++;
          inFlightSince = Date.now();
        },
        onAnswer: (ms) => {
          inFlightSince = null;
          this.callTimes.observe(ms);
        },
      });
    } catch (err) {
      // The provider's own timeout may fire a moment before ours: out of time either way.
      if (!deadline.signal.aborted && runBudget.remainingMs() > 0) throw err;
      // A call cut off took at least this long: the next request's estimate goes by it too.
      if (inFlightSince !== null) this.callTimes.observe(Date.now() - inFlightSince);
      throw timeUp();
    } finally {
      clearTimeout(timer);
    }
  }
}
