// Child process of the HTTP benchmarks: starts one server on a loopback port, sends its address to
// the parent over IPC, and closes it when the parent sends 'stop' (or goes away). Running servers
// here keeps them off the event loop and CPU of the load generator in the parent.
//   bare    a plain Fastify app with one static GET /v1/account — the baseline
//   unfurl  the full Unfurl app (createServices + buildApp), configured from this process's env
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createServices, type Services } from '../../src/services.js';
import { answerCpuQuestions } from './http.js';

export type ServerKind = 'bare' | 'unfurl';

/** What the baseline answers: the shape and size of a real GET /v1/account answer. */
const STATIC_ACCOUNT = {
  id: 'acc_0123456789abcdefghij',
  email: 'bench@example.com',
  credits: 100,
  createdAt: 1_763_000_000_000,
  webhookSecret: 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEF',
};

async function start(kind: ServerKind): Promise<{ app: FastifyInstance; services: Services | null }> {
  if (kind === 'bare') {
    const app = Fastify({ logger: false });
    app.get('/v1/account', async () => STATIC_ACCOUNT);
    return { app, services: null };
  }
  const services = await createServices(loadConfig(process.env));
  return { app: await buildApp(services, { logger: false }), services };
}

const kind = process.argv[2];
if (kind !== 'bare' && kind !== 'unfurl') throw new Error(`unknown server kind "${kind}"`);
const { app, services } = await start(kind);
const address = await app.listen({ port: 0, host: '127.0.0.1' });

let closing = false;
async function stop() {
  if (closing) return;
  closing = true;
  await app.close();
  await services?.close();
  process.exit(0);
}
process.on('message', (m) => m === 'stop' && void stop());
answerCpuQuestions();
process.on('disconnect', () => void stop());
process.send!({ address });
