#!/usr/bin/env node
// The one `unfurl` binary: server commands (serve, worker, migrate, admin) and client commands
// (src/main/client/: login, transcript, crawl, … through the SDK).
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../config.js';
import { CLIENT_COMMAND_NAMES } from './client/names.js';
import { runtimeProblem } from './runtime.js';

// Each command imports only what it needs, so usage errors and `unfurl admin …` answer quickly.

const HELP = `unfurl — URL in, data out

commands:
  serve                 start the API (PORT, HOST, DATABASE_URL, REDIS_URL …; see README)
    --processes N|auto  N API processes sharing the port (with DATABASE_URL and REDIS_URL)
  worker                run jobs and send webhooks (BullMQ with REDIS_URL, else the jobs table)
  migrate               bring the database schema up to date and exit
  admin credits grant|clawback --email E --amount N --reason TEXT
  admin proxies [--json] each proxy's health per platform (benched, failures, blocks)
  mcp                   an MCP server on stdio for LLM agents (the saved login, or UNFURL_API_KEY/URL)
  help                  this text
  -v, --version         the version of this unfurl`;

const SERVE_HELP = `unfurl serve [--processes N|auto]

  --processes N|auto  run N API processes on one port: the kernel spreads new connections over
                      them. Needs the distributed deployment (DATABASE_URL and REDIS_URL); auto
                      is one per core. Default: 1`;

const SERVER_COMMAND_NAMES = ['serve', 'worker', 'migrate', 'admin', 'mcp', 'help'];

async function fullHelp(): Promise<string> {
  return `${HELP}\n\n${(await import('./client/index.js')).clientHelp()}`;
}

/** The version in package.json (beside dist/ and src/ alike: two levels up from this file). */
function version(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** The nearest command name when the mistake looks like a typo, and where the whole list is. */
async function unknownCommand(command: string): Promise<number> {
  const { closest } = await import('./client/suggest.js');
  const guess = closest(command, [...SERVER_COMMAND_NAMES, ...CLIENT_COMMAND_NAMES]);
  const hint = guess ? ` (did you mean "${guess}"?)` : '';
  console.error(`unknown command "${command}"${hint}\n\`unfurl --help\` lists the commands`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    console.log(await fullHelp());
    return command ? 0 : 2;
  }
  if (command === '--version' || command === '-v' || command === '-V' || command === 'version') {
    console.log(`unfurl ${version()}`);
    return 0;
  }
  const problem = runtimeProblem();
  if (problem) {
    console.error(problem);
    return 1;
  }
  // Client commands talk to a server through the SDK: no server configuration is read for them.
  if ((CLIENT_COMMAND_NAMES as readonly string[]).includes(command)) {
    return (await import('./client/index.js')).runClient(command, rest);
  }
  if (command === 'mcp') return (await import('./mcp.js')).mcp();
  if (!SERVER_COMMAND_NAMES.includes(command)) return unknownCommand(command);
  const config = loadConfig();
  switch (command) {
    case 'serve': {
      if (rest.includes('--help') || rest.includes('-h')) {
        console.log(SERVE_HELP);
        return 0;
      }
      const { parseServeArgs, processCount, runProcessGroup, GROUP_MEMBER_ENV } = await import(
        './process-group.js'
      );
      const processes = processCount(parseServeArgs(rest).processes, config);
      if (processes > 1 && process.env[GROUP_MEMBER_ENV] === undefined) {
        const { pino } = await import('pino');
        const stream = (await import('./log-format.js')).logDestination(config);
        const options = { level: config.logLevel, base: { role: 'group', pid: process.pid } };
        const log = stream ? pino(options, stream) : pino(options);
        await runProcessGroup(config, processes, (fields, message) => log.info(fields, message));
        return -1;
      }
      await (await import('./serve.js')).serve(config);
      return -1; // keeps running
    }
    case 'worker':
      await (await import('./worker.js')).worker(config);
      if (config.workerMetricsPort > 0) {
        // Jobs settle credits and call platforms here: Prometheus scrapes workers on their own port.
        const { startMetricsServer } = await import('../metrics-server.js');
        const { url } = await startMetricsServer(config.workerMetricsPort, config.host);
        (await import('pino')).pino({ level: config.logLevel }).info({ url }, 'worker metrics listening');
      }
      return -1; // keeps running
    case 'migrate': {
      const { openStore } = await import('../store/db.js');
      const { migrateToLatest } = await import('../store/migrator.js');
      const store = openStore(config);
      try {
        const applied = await migrateToLatest(store);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema up to date');
      } finally {
        await store.close();
      }
      return 0;
    }
    case 'admin':
      return (await import('./admin.js')).admin(config, rest);
    default:
      return unknownCommand(command);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
