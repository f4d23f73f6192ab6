// The language model's part of a scrape (its json and summary formats), each call bounded by the
// AI request timeout and the scrape's own signal.
import { budget } from '../../media/ai/budget.js';
import type { AiClient } from '../../media/ai/client.js';
import { pageJson, pageSummary } from '../../media/llm/page-asks.js';
import type { PageModel } from './documents.js';

export function pageModel(llm: AiClient, timeoutMs: number): PageModel {
  const opts = (signal: AbortSignal) => ({ budget: budget(timeoutMs), signal });
  return {
    json: (ask, markdown, signal) => pageJson(llm, ask, markdown, opts(signal)),
    summary: (markdown, signal) => pageSummary(llm, markdown, opts(signal)),
  };
}
