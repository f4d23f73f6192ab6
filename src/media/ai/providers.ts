// The AI providers of this process, one client per task, sharing one fetcher that may reach
// private addresses: the base URLs are operator configuration (see client.ts on SSRF).
import { Agent } from 'undici';
import type { AiEndpoint, Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { SafeFetcher } from '../../net/safe-fetch.js';
import type { SpeechRecogniser } from '../asr/recogniser.js';
import { providerRecogniser } from '../asr/transcribe.js';
import { WhisperEngine } from '../asr/whisper/engine.js';
import { partTimeout, whisperRecogniser } from '../asr/whisper/recogniser.js';
import { AiClient } from './client.js';

export interface AiProviders {
  readonly asr: AiClient;
  /** Speech recognition as this process runs it (UNFURL_ASR_ENGINE); null when none is configured. */
  readonly speech: SpeechRecogniser | null;
  readonly vision: AiClient;
  readonly llm: AiClient;
  close(): Promise<void>;
}

export function createAiProviders(config: Config): AiProviders {
  const ai = config.ai;
  const fetcher = new SafeFetcher({
    allowPrivateNetwork: true,
    timeoutMs: ai.requestTimeoutMs,
    maxBytes: 32 * 1024 * 1024,
  });
  // A provider may think for minutes before its first byte (a long transcription): the shared
  // fetcher's 30 s header timeout would cut it off, so AI calls get a pool timed by UNFURL_AI_TIMEOUT_MS.
  const dispatcher = new Agent({
    headersTimeout: ai.requestTimeoutMs,
    bodyTimeout: ai.requestTimeoutMs,
    connect: { timeout: 10_000 },
    connections: 32,
  });
  const settings = { requestTimeoutMs: ai.requestTimeoutMs, retryBaseMs: ai.retryBaseMs, dispatcher };
  const asr = new AiClient(ai.asr, 'speech recognition', fetcher, settings);
  // The engine starts no process until a job needs one: an API-only process never does.
  const whisper = ai.whisper.modelPath
    ? new WhisperEngine({ ...ai.whisper, modelPath: ai.whisper.modelPath })
    : null;
  return {
    asr,
    speech: whisper
      ? whisperRecogniser(whisper, partTimeout(ai.whisper.timeoutFactor))
      : asr.configured
        ? providerRecogniser(asr, ai.asrMaxUploadBytes)
        : null,
    vision: new AiClient(ai.vision, 'vision', fetcher, settings),
    llm: new AiClient(ai.llm, 'language model', fetcher, settings),
    close: async () => {
      await whisper?.close();
      await dispatcher.close();
      await fetcher.close();
    },
  };
}

/** 503 provider_unavailable at submit time when this server recognises no speech. */
export function requireSpeech(config: Pick<Config['ai'], 'asrEngine' | 'asr'>): void {
  if (config.asrEngine === 'whisper') return;
  requireProvider(config.asr, 'speech recognition');
}

/** 503 provider_unavailable at submit time when `endpoint` has no provider. */
export function requireProvider(endpoint: AiEndpoint, task: string): void {
  if (!endpoint.baseUrl) {
    throw new AppError(
      'provider_unavailable',
      task === 'speech recognition'
        ? 'This needs speech recognition, which is not configured on this server (UNFURL_ASR_ENGINE=whisper with a model file, or an AI provider: UNFURL_AI_BASE_URL)'
        : `This needs ${task}, and no AI provider is configured for it on this server (UNFURL_AI_BASE_URL)`,
    );
  }
}
