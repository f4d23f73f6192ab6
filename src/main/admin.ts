// `unfurl admin …`: operator commands that act on the database directly.
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { BenchEntry } from '../net/proxy-bench.js';

const USAGE = `usage:
  unfurl admin credits grant --email E --amount N --reason TEXT
  unfurl admin credits clawback --email E --amount N --reason TEXT
  unfurl admin proxies [--json]`;

export async function admin(config: Config, argv: string[]): Promise<number> {
  const [area, action, ...rest] = argv;
  if (area === 'proxies') return proxies(config, argv.slice(1));
  if (area !== 'credits' || (action !== 'grant' && action !== 'clawback')) {
    console.error(USAGE);
    return 2;
  }
  let values: { email?: string; amount?: string; reason?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { email: { type: 'string' }, amount: { type: 'string' }, reason: { type: 'string' } },
    }));
  } catch (err) {
    // Unknown options, stray words and options missing their value are usage errors, not crashes.
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  // Plain decimal digits only: "1e3", "0x10" or "10abc" are not amounts an operator means.
  const amount = /^[1-9][0-9]*$/.test(values.amount ?? '') ? Number(values.amount) : Number.NaN;
  if (!values.email?.trim() || !Number.isSafeInteger(amount) || !values.reason?.trim()) {
    console.error(`--email, a positive integer --amount and a --reason are required\n${USAGE}`);
    return 2;
  }
  const { createServices } = await import('../services.js');
  const services = await createServices(config);
  try {
    const account = await services.accounts.findByEmail(values.email);
    if (!account) {
      console.error(`no account with e-mail ${values.email}`);
      return 1;
    }
    const reason = values.reason.trim();
    if (action === 'grant') {
      const balance = await services.ledger.grant(account.id, amount, `Operator grant: ${reason}`);
      console.log(JSON.stringify({ accountId: account.id, granted: amount, balance }));
    } else {
      const r = await services.ledger.clawback(account.id, amount, `Operator clawback: ${reason}`);
      const balance = await services.ledger.balance(account.id);
      console.log(JSON.stringify({ accountId: account.id, clawedBack: r.taken, capped: r.capped, balance }));
      if (r.capped)
        console.error(`warning: only ${r.taken} of ${amount} credits were available; entry flagged`);
    }
    return 0;
  } finally {
    await services.close();
  }
}

/**
 * `unfurl admin proxies`: each proxy of UNFURL_PROXY_URLS (index and host, never its credentials) and
 * its state per platform, as the processes share it in Redis. Without REDIS_URL every process keeps
 * its own bench, which only its /metrics shows.
 */
async function proxies(config: Config, argv: string[]): Promise<number> {
  let json = false;
  try {
    json = Boolean(parseArgs({ args: argv, options: { json: { type: 'boolean' } } }).values.json);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { proxyHost, proxyReport } = await import('../net/proxies.js');
  const hosts = config.proxyUrls.map(proxyHost);
  let entries: BenchEntry[] = [];
  if (config.redisUrl && hosts.length > 0) {
    const [{ Redis }, { readSharedBench }] = await Promise.all([
      import('ioredis'),
      import('../net/proxy-bench-redis.js'),
    ]);
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 5000 });
    try {
      entries = await readSharedBench(redis, config.jobs.queuePrefix, hosts);
    } finally {
      redis.disconnect();
    }
  } else if (hosts.length > 0) {
    console.error(
      'note: without REDIS_URL each process keeps its own bench: see its /metrics (unfurl_proxy_benched)',
    );
  }
  const report = proxyReport(hosts, entries, Date.now());
  if (json) {
    console.log(JSON.stringify(report));
    return 0;
  }
  if (hosts.length === 0) {
    console.log('no proxies configured (UNFURL_PROXY_URLS)');
    return 0;
  }
  const rows = [['#', 'host', 'platform', 'state', 'bench left', 'failures', 'blocks', 'errors']];
  for (const p of report) {
    const lines = p.platforms.length ? p.platforms : [null];
    for (const s of lines) {
      rows.push([
        String(p.index),
        p.host,
        s?.platform ?? '-',
        !s?.benched ? 'healthy' : s.benchLeftMs > 0 ? 'benched' : 'probe due',
        s?.benched ? `${Math.ceil(s.benchLeftMs / 1000)}s` : '-',
        String(s?.failures ?? 0),
        String(s?.blocks ?? 0),
        String(s?.errors ?? 0),
      ]);
    }
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows)
    console.log(
      r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    );
  return 0;
}
