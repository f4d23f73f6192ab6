// The AI providers of this process, one client per task, sharing one fetcher that may reach
// private addresses: the base URLs are operator configuration (see client.ts on SSRF).
import type { AiEndpoint, Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { SafeFetcher } from '../../net/safe-fetch.js';
import { AiClient } from './client.js';

export interface AiProviders {
  readonly asr: AiClient;
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
  const settings = { requestTimeoutMs: ai.requestTimeoutMs, retryBaseMs: ai.retryBaseMs };
  return {
    asr: new AiClient(ai.asr, 'speech recognition', fetcher, settings),
    vision: new AiClient(ai.vision, 'vision', fetcher, settings),
    llm: new AiClient(ai.llm, 'language model', fetcher, settings),
    close: () => fetcher.close(),
  };
}

/** 503 provider_unavailable at submit time when `endpoint` has no provider. */
export function requireProvider(endpoint: AiEndpoint, task: string): void {
  if (!endpoint.baseUrl) {
    throw new AppError(
      'provider_unavailable',
      `This needs ${task}, and no AI provider is configured for it on this server (UNFURL_AI_BASE_URL)`,
    );
  }
}
