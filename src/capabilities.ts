// Where each capability registers its job kinds, so that serve, worker and tests all know them.
import { registerAiJobs } from './media/ai-jobs.js';
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
}
