// `npm run bench [-- <name> …]`: runs the named benchmarks, or all of them, one after another. Each
// prints its numbers beside a baseline measured in the same run. A benchmark is a bench/<name>.ts
// exporting one async function, registered below.
import os from 'node:os';

const benchmarks: Record<string, { what: string; run(): Promise<void> }> = {
  account: {
    what: 'authenticated GET /v1/account req/s and latency vs bare Fastify',
    run: async () => (await import('./account.js')).benchAccount(),
  },
  jobs: {
    what: 'job throughput per queue adapter vs raw BullMQ, and idle POST→completed latency',
    run: async () => (await import('./jobs.js')).benchJobs(),
  },
};

const names = process.argv.slice(2);
const unknown = names.filter((n) => !(n in benchmarks));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; available:`);
  for (const [name, b] of Object.entries(benchmarks)) console.error(`  ${name.padEnd(10)} ${b.what}`);
  process.exit(2);
}
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'CPU'}`,
);
for (const name of names.length > 0 ? names : Object.keys(benchmarks)) {
  await benchmarks[name]!.run();
}
