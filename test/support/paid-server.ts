// A real API server process with the paid test route, for multi-process tests. Configuration comes
// from the environment (as in production); it listens on a free port and prints
// `LISTENING <address>` once it accepts connections. SIGTERM closes it cleanly.
// Usage: node --import tsx test/support/paid-server.ts
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createServices } from '../../src/services.js';
import { paidTestRoutes } from './paid-route.js';

const services = await createServices(loadConfig());
const app = await buildApp(services, { logger: false, extraRoutes: (a) => paidTestRoutes(a, services) });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${address}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await app.close();
  await services.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
