// Where each capability registers its job kinds, so that serve, worker and tests all know them.
import type { Services } from './services.js';
import { registerCrawl } from './sources/web/crawl-job.js';

export function registerCapabilities(services: Services): void {
  registerCrawl({
    registry: services.jobs.registry,
    scraper: services.web.scraper,
    upstreams: services.upstreams,
    items: services.jobs.items,
    concurrency: services.config.crawl.concurrency,
    perHostConcurrency: services.config.crawl.perHostConcurrency,
  });
}
