// Child process of the transcript benchmark (bench/transcript.ts): starts one server on a loopback
// port, sends `{ address, apiKey? }` to the parent over IPC, and closes it on 'stop' (or when the
// parent goes away).
//   replay <n>  test/support/youtube-replay.ts, the stand-in platform replaying real captures, with
//               <n> made-up video ids (benchId(0) … benchId(n-1)) that answer the captured player
//               (youtube-transcript-api/youtube.innertube.json.static, ~197 KB) for every client, so
//               that a load of distinct ids is never coalesced by the app's single-flight. It records
//               every request it serves; here those records are tallied by path and dropped once a
//               second (memory stays flat under load), and the message 'counts' answers
//               `{ counts: { '<path>': n, … } }` since start.
//   bare        a plain Fastify app answering GET /v1/transcript with the JSON in BENCH_BARE_BODY (the
//               app's own cached answer): the baseline of the warm side.
//   unfurl      the full Unfurl app (createServices + buildApp + listen), configured from this
//               process's env, with one account granted BENCH_CREDITS (default 100 000 000) credits;
//               its key is sent as `apiKey`.
// Every kind answers the message 'cpu' with `{ cpuUs }`: the CPU time (user + system) it has used,
// so the parent can tell each request's CPU cost, which a machine shared with other work skews far
// less than the rate.
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { CAPTURES, startYouTubeReplay } from '../../test/support/youtube-replay.js';
import { answerCpuQuestions } from './http.js';
import { startUnfurlApp } from './unfurl-app.js';

/** The i-th made-up video id (11 characters, as the platform's are). */
export const benchId = (i: number) => `bench${String(i).padStart(6, '0')}`;

async function replay(ids: number) {
  const players: Record<string, Record<string, string>> = {};
  for (let i = 0; i < ids; i++) players[benchId(i)] = { '*': CAPTURES.playerOk };
  const server = await startYouTubeReplay({ players });
  const counts: Record<string, number> = {};
  const tally = () => {
    for (const r of server.requests) counts[r.path] = (counts[r.path] ?? 0) + 1;
    server.requests.length = 0;
  };
  const timer = setInterval(tally, 1000);
  process.on('message', (m) => {
    if (m !== 'counts') return;
    tally();
    process.send!({ counts });
  });
  return {
    address: server.url,
    async close() {
      clearInterval(timer);
      await server.close();
    },
  };
}

async function bare() {
  const body = process.env.BENCH_BARE_BODY ?? '{}';
  const app = Fastify({ logger: false });
  app.get('/v1/transcript', async (_request, reply) => reply.type('application/json').send(body));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { address, close: () => app.close() };
}

const unfurl = () =>
  startUnfurlApp({ name: 'transcript', credits: Number(process.env.BENCH_CREDITS ?? 100_000_000) });

// Only when forked as this script: the parent imports benchId from here.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const [kind, arg] = process.argv.slice(2);
  const servers = { replay: () => replay(Number(arg ?? 1)), bare, unfurl };
  if (!(kind! in servers)) throw new Error(`unknown server kind "${kind}"`);
  const server: { address: string; apiKey?: string; close(): Promise<void> } =
    await servers[kind as keyof typeof servers]();
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await server.close();
    process.exit(0);
  };
  process.on('message', (m) => m === 'stop' && void stop());
  answerCpuQuestions();
  process.on('disconnect', () => void stop());
  const { close: _close, ...hello } = server;
  process.send!({ ...hello });
}
