// Where each capability registers its job kinds, so that serve, worker and tests all know them.
import type { Services } from './services.js';

export function registerCapabilities(_services: Services): void {
  // One line per capability, e.g. registerCrawl(services).
}
