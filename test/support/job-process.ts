// Entry point of the real server and worker processes spawned by crash tests: the production
// `serve` / `worker` with the test job kinds (and their POST routes) added.
// Usage: node --import tsx test/support/job-process.ts serve|worker   (configuration from env)
import { loadConfig } from '../../src/config.js';
import { type ProcessHooks, serve } from '../../src/main/serve.js';
import { worker } from '../../src/main/worker.js';
import { registerTestKinds, testJobRoutes } from './test-kinds.js';

const role = process.argv[2];
const hooks: ProcessHooks = {
  setup: (services) => registerTestKinds(services.jobs.registry),
  extraRoutes: testJobRoutes,
};
if (role === 'serve') await serve(loadConfig(), hooks);
else if (role === 'worker') await worker(loadConfig(), hooks);
else {
  console.error('usage: job-process.ts serve|worker');
  process.exit(2);
}
