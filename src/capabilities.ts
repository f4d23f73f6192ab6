// Where each capability registers its job kinds, so that serve, worker and tests all know them. It
// takes the view of the services it uses (services.ts passes itself), so nothing imports back.

import type { JobItems } from './jobs/items.js';
import { type AiJobServices, registerAiJobs } from './media/ai-jobs.js';
import { registerOcr } from './media/ocr-job.js';
import type { Upstreams } from './net/upstream.js';
import { registerCrawl } from './sources/web/crawl-job.js';
import type { Scraper } from './sources/web/scraper.js';
import { registerVideoBatches } from './sources/youtube/batch-job.js';
import type { YouTube } from './sources/youtube/service.js';

export interface CapabilityServices extends AiJobServices {
  readonly jobs: AiJobServices['jobs'] & { readonly items: JobItems };
  readonly web: { readonly scraper: Scraper };
  readonly upstreams: Upstreams;
  readonly youtube: YouTube;
}

export function registerCapabilities(services: CapabilityServices): void {
  registerCrawl({
    registry: services.jobs.registry,
    scraper: services.web.scraper,
    upstreams: services.upstreams,
    items: services.jobs.items,
    concurrency: services.config.crawl.concurrency,
    perHostConcurrency: services.config.crawl.perHostConcurrency,
  });
  registerVideoBatches({
    registry: services.jobs.registry,
    youtube: services.youtube,
    items: services.jobs.items,
  });
  registerAiJobs(services);
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
