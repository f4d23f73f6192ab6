// Where each capability registers its job kinds, so that serve, worker and tests all know them.
import { registerAiJobs } from './media/ai-jobs.js';
import { registerOcr } from './media/ocr-job.js';
import type { Services } from './services.js';
import { registerCrawl } from './sources/web/crawl-job.js';
import { registerVideoBatches } from './sources/youtube/batch-job.js';

export function registerCapabilities(services: Services): void {
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
