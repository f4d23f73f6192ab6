// Where each capability registers its job kinds, so that serve, worker and tests all know them. It
// takes the view of the services it uses (services.ts passes itself), so nothing imports back.

import type { JobItems } from './jobs/items.js';
import type { JobService } from './jobs/service.js';
import { budget } from './media/ai/budget.js';
import { requireProvider } from './media/ai/providers.js';
import { type AiJobServices, registerAiJobs } from './media/ai-jobs.js';
import { extractFromPage } from './media/llm/extract.js';
import { registerOcr } from './media/ocr-job.js';
import type { Transcripts } from './media/transcripts.js';
import { registerMonitorChecks } from './monitors/check-job.js';
import type { MonitorRecords } from './monitors/records.js';
import type { Upstreams } from './net/upstream.js';
import type { Platforms } from './sources/platforms.js';
import { registerBatchScrape } from './sources/web/batch-scrape-job.js';
import { registerCrawl } from './sources/web/crawl-job.js';
import type { WebDocuments } from './sources/web/documents.js';
import type { Mapper } from './sources/web/mapper.js';
import type { Scraper } from './sources/web/scraper.js';
import { registerVideoBatches } from './sources/youtube/batch-job.js';
import type { YouTube } from './sources/youtube/service.js';

export interface CapabilityServices extends AiJobServices {
  readonly jobs: AiJobServices['jobs'] & { readonly items: JobItems; readonly service: JobService };
  readonly web: { readonly scraper: Scraper; readonly mapper: Mapper; readonly documents: WebDocuments };
  readonly upstreams: Upstreams;
  readonly youtube: YouTube;
  readonly platforms: AiJobServices['platforms'] & Pick<Platforms, 'recognise'>;
  readonly transcripts: Pick<Transcripts, 'transcript'>;
  readonly monitors: { readonly records: MonitorRecords };
}

export function registerCapabilities(services: CapabilityServices): void {
  registerCrawl({
    registry: services.jobs.registry,
    scraper: services.web.scraper,
    documents: services.web.documents,
    upstreams: services.upstreams,
    items: services.jobs.items,
    concurrency: services.config.crawl.concurrency,
    perHostConcurrency: services.config.crawl.perHostConcurrency,
    renderConcurrency: services.config.browser.accountMax,
  });
  registerBatchScrape({
    registry: services.jobs.registry,
    documents: services.web.documents,
    items: services.jobs.items,
    concurrency: services.config.crawl.concurrency,
    perHostConcurrency: services.config.crawl.perHostConcurrency,
    renderConcurrency: services.config.browser.accountMax,
  });
  registerVideoBatches({
    registry: services.jobs.registry,
    youtube: services.youtube,
    items: services.jobs.items,
  });
  registerAiJobs(services);
  registerMonitorChecks(monitorCheckDeps(services));
  registerOcr({
    registry: services.jobs.registry,
    sources: services.platforms,
    downloader: services.downloader,
    scratch: services.scratch,
    settings: {
      maxSeconds: services.config.media.maxSeconds,
      jobConcurrency: services.config.ocr.jobConcurrency,
      processes: services.config.ocr.processes,
      fps: services.config.ocr.fps,
    },
  });
}

function monitorCheckDeps(services: CapabilityServices): Parameters<typeof registerMonitorChecks>[0] {
  const { youtube, transcripts, platforms, web, jobs } = services;
  return {
    registry: jobs.registry,
    concurrency: services.config.monitors.checkConcurrency,
    records: services.monitors.records,
    videos: {
      source: youtube,
      transcript: (caller, ref, ask) => transcripts.transcript(caller, ref, ask),
      recognise: (url) => platforms.recognise(url),
      async jobAnswer(accountId, jobId) {
        const job = await jobs.service.getReadable(accountId, jobId);
        return job.status === 'queued' || job.status === 'active' ? null : jobs.service.pollAnswer(job);
      },
    },
    pages: {
      scrape: (url, options) => web.scraper.scrapeNow(url, options),
      map: (url, options) => web.mapper.map(url, options),
      extract(schema, markdown, signal) {
        requireProvider(services.config.ai.llm, 'a language model');
        return extractFromPage(services.ai.llm, schema, markdown, {
          budget: budget(services.config.ai.requestTimeoutMs),
          signal,
        });
      },
    },
  };
}
