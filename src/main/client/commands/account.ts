// Account commands: register and login (saving the key), logout, credits, usage and jobs. Login uses
// a session only to make this machine's key and ends it at once; logout revokes that key again.
import os from 'node:os';
import { isUnfurlError, Unfurl } from '@unfurl/sdk';
import { creditsText } from '../../../billing/prices.js';
import { writeConfig } from '../config-store.js';
import type { CommandContext, CommandSpec } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { readHidden } from '../hidden-input.js';
import { fields, isoTime, line, printJson, table, withHint } from '../output.js';
import { hasCrawlPages } from './web.js';

/**
 * --password, else UNFURL_PASSWORD, else a prompt that does not echo (terminal), else stdin's first
 * line. `confirm` (a new password: register) asks twice on a terminal, where a typo cannot be seen.
 */
async function password(ctx: CommandContext, opts: { confirm?: boolean } = {}): Promise<string> {
  const given = ctx.string('password') ?? ctx.env.UNFURL_PASSWORD;
  if (given) return given;
  const input = process.stdin;
  if (input.isTTY) {
    const answer = await readHidden('Password (not shown as you type): ', input, process.stderr);
    if (!answer) throw new UsageError('a password is needed');
    if (opts.confirm) {
      const again = await readHidden('Repeat the password: ', input, process.stderr);
      if (again !== answer) throw new UsageError('the two passwords differ: nothing was sent, try again');
    }
    return answer;
  }
  let text = '';
  for await (const chunk of input) text += chunk;
  const first = text.split(/\r?\n/)[0] ?? '';
  if (!first) throw new UsageError('a password is needed: --password, UNFURL_PASSWORD, or a line on stdin');
  return first;
}

function email(ctx: CommandContext): string {
  const e = ctx.string('email') ?? ctx.positionals[0];
  if (!e) throw new UsageError('--email is required');
  return e;
}

/**
 * Saves the new login over the old one. A key the old login made for this machine (`unfurl login`)
 * is revoked on its server once the new one is saved, so logins do not pile up valid keys; a key the
 * user made or gave (register, --api-key) is only replaced here. Best effort: a failure is a warning.
 */
async function saveLogin(
  ctx: CommandContext,
  login: { apiKey: string; email?: string; keyId?: string; keyMadeByLogin?: boolean },
): Promise<string | null> {
  const { keyMadeByLogin: _, keyId: _id, ...saved } = ctx.saved;
  writeConfig({ ...saved, baseUrl: ctx.baseUrl, ...login }, ctx.configFile);
  const old = ctx.saved;
  if (!old.keyMadeByLogin || !old.apiKey || !old.keyId || old.apiKey === login.apiKey) return null;
  if (old.apiKey.startsWith('uf_sess_')) return null;
  try {
    // The old key revokes itself: it may belong to another account than the new one.
    const client = new Unfurl({ baseUrl: old.baseUrl ?? ctx.baseUrl, apiKey: old.apiKey });
    await client.keys.revoke(old.keyId, { signal: AbortSignal.timeout(10_000) });
    return old.keyId;
  } catch (err) {
    // Already revoked (401/404): nothing is left to do.
    if (isUnfurlError(err) && (err.status === 401 || err.status === 404)) return null;
    ctx.output.err.write(
      `warning: could not revoke the previous login's key ${old.keyId} (${(err as Error).message}); ` +
        'revoke it with the dashboard or DELETE /v1/keys/{key_id}\n',
    );
    return null;
  }
}

/** The line (or JSON field) that says which key of the previous login was revoked. */
function revokedNote(ctx: CommandContext, revokedKeyId: string | null) {
  if (revokedKeyId && !ctx.output.json) {
    line(ctx.output, `Revoked ${revokedKeyId}, the key the previous \`unfurl login\` made here`);
  }
}

const CREDENTIAL_OPTIONS = { email: { type: 'string' }, password: { type: 'string' } } as const;
const CREDENTIAL_HELP = `  --email EMAIL        the account's e-mail
  --password PASSWORD  else UNFURL_PASSWORD, else asked for (not echoed), else read from stdin`;

export const register: CommandSpec = {
  name: 'register',
  summary: 'create an account (100 free credits) and save its API key',
  usage: '--email EMAIL [--password PASSWORD]',
  details: CREDENTIAL_HELP,
  options: CREDENTIAL_OPTIONS,
  positionals: [0, 0],
  async run(ctx) {
    const client = new Unfurl({ baseUrl: ctx.baseUrl, apiKey: null });
    const address = email(ctx);
    const secret = await password(ctx, { confirm: true });
    let reg: Awaited<ReturnType<typeof client.auth.register>>;
    try {
      reg = await client.auth.register({ email: address, password: secret }, ctx);
    } catch (err) {
      if (isUnfurlError(err) && err.status === 409) {
        withHint(
          err,
          `that e-mail has an account already: \`unfurl login --email ${address}\` logs in to it`,
        );
      }
      throw err;
    }
    const revokedKeyId = await saveLogin(ctx, { apiKey: reg.apiKey, email: reg.email, keyId: reg.keyId });
    if (ctx.output.json) printJson(ctx.output, { ...reg, configFile: ctx.configFile, revokedKeyId });
    else {
      line(ctx.output, `Registered ${reg.email} (${reg.accountId}) with ${creditsText(reg.credits)} free.`);
      line(ctx.output, `API key ${reg.keyId} saved to ${ctx.configFile}`);
    }
    revokedNote(ctx, revokedKeyId);
    return 0;
  },
};

export const login: CommandSpec = {
  name: 'login',
  summary: 'save an API key: a new one made for this machine, or --api-key KEY checked and saved',
  usage: '--email EMAIL [--password PASSWORD] | --api-key KEY',
  details: `${CREDENTIAL_HELP}
  --api-key KEY        save this key instead (checked against the server first)
  --key-name NAME      name of the key created for this machine (default: unfurl-cli@<hostname>)`,
  options: { ...CREDENTIAL_OPTIONS, 'key-name': { type: 'string' } },
  positionals: [0, 0],
  async run(ctx) {
    const explicitKey = ctx.string('api-key') ?? (ctx.string('email') ? undefined : ctx.env.UNFURL_API_KEY);
    if (explicitKey && !ctx.string('email')) {
      const account = await new Unfurl({ baseUrl: ctx.baseUrl, apiKey: explicitKey }).account.get(ctx);
      const revokedKeyId = await saveLogin(ctx, { apiKey: explicitKey, email: account.email });
      if (ctx.output.json) {
        printJson(ctx.output, { email: account.email, configFile: ctx.configFile, revokedKeyId });
      } else line(ctx.output, `Logged in as ${account.email}; key saved to ${ctx.configFile}`);
      revokedNote(ctx, revokedKeyId);
      return 0;
    }
    const anonymous = new Unfurl({ baseUrl: ctx.baseUrl, apiKey: null });
    const session = await anonymous.auth.login({ email: email(ctx), password: await password(ctx) }, ctx);
    const withSession = new Unfurl({ baseUrl: ctx.baseUrl, apiKey: session.token });
    const name = ctx.string('key-name') ?? `unfurl-cli@${os.hostname()}`.slice(0, 200);
    const key = await withSession.keys.create(name, ctx);
    // The session was only needed to make the key: end it rather than leave it valid for a day.
    await withSession.auth.logout(ctx);
    const revokedKeyId = await saveLogin(ctx, {
      apiKey: key.key,
      email: session.email,
      keyId: key.id,
      keyMadeByLogin: true,
    });
    if (ctx.output.json) {
      printJson(ctx.output, {
        email: session.email,
        keyId: key.id,
        keyName: key.name,
        configFile: ctx.configFile,
        revokedKeyId,
      });
    } else {
      line(
        ctx.output,
        `Logged in as ${session.email}; new API key "${key.name}" (${key.id}) saved to ${ctx.configFile}`,
      );
    }
    revokedNote(ctx, revokedKeyId);
    return 0;
  },
};

export const logout: CommandSpec = {
  name: 'logout',
  summary: 'end the saved login on the server (the key `login` made, or a session) and forget it',
  usage: '',
  details: `  A key made by \`unfurl login\` is revoked and a saved session token is ended; any other saved key
  (from register or --api-key) is only forgotten here and stays valid: revoke it with the dashboard or API.`,
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    const { apiKey, keyId, keyMadeByLogin, ...rest } = ctx.saved;
    const client = new Unfurl({ baseUrl: ctx.saved.baseUrl ?? ctx.baseUrl, apiKey: apiKey ?? null });
    let ended: 'revoked' | 'ended' | 'forgotten' | 'already' = 'forgotten';
    try {
      if (apiKey?.startsWith('uf_sess_')) {
        await client.auth.logout(ctx);
        ended = 'ended';
      } else if (apiKey && keyId && keyMadeByLogin) {
        await client.keys.revoke(keyId, ctx);
        ended = 'revoked';
      }
    } catch (err) {
      // Already revoked or expired: nothing is left to end. Anything else keeps the login, to retry.
      if (!isUnfurlError(err) || (err.status !== 401 && err.status !== 404)) throw err;
      ended = 'already';
    }
    writeConfig(rest, ctx.configFile);
    if (ctx.output.json) printJson(ctx.output, { loggedOut: true, key: ended, configFile: ctx.configFile });
    else if (ended === 'revoked')
      line(ctx.output, `Revoked key ${keyId} and removed it from ${ctx.configFile}`);
    else if (ended === 'ended')
      line(ctx.output, `Ended the saved session and removed it from ${ctx.configFile}`);
    else if (ended === 'already')
      line(ctx.output, `The saved login had already ended; removed it from ${ctx.configFile}`);
    else line(ctx.output, `Forgot the key saved in ${ctx.configFile} (it stays valid: revoke it to end it)`);
    return 0;
  },
};

/** The built-in test-mode checkout lives on the server itself; a payment provider's page does not. */
const isTestCheckout = (checkoutUrl: string) =>
  /^\/v1\/credits\/checkout\/chk_/.test(new URL(checkoutUrl).pathname);

export const credits: CommandSpec = {
  name: 'credits',
  summary: 'the balance and the packages on sale; `credits buy PACKAGE` answers a checkout URL',
  usage: '[buy PACKAGE]',
  options: {},
  positionals: [0, 2],
  async run(ctx) {
    const [action, packageId] = ctx.positionals;
    const client = ctx.client({ requireKey: true });
    if (action !== undefined) {
      if (action !== 'buy' || !packageId) throw new UsageError('expected `credits` or `credits buy PACKAGE`');
      const checkout = await client.credits.purchase(packageId, ctx).catch((err: unknown) => {
        // An unknown package: the list is one command away.
        if (isUnfurlError(err) && err.status === 400 && err.details === 'package_id') {
          withHint(err, '`unfurl credits` lists the packages on sale');
        }
        throw err;
      });
      if (ctx.output.json) printJson(ctx.output, checkout);
      else if (isTestCheckout(checkout.checkoutUrl)) {
        line(ctx.output, `Test mode: this server takes no payment (no payment provider is configured).`);
        line(
          ctx.output,
          `Open this page and press "Confirm test purchase" to add ${creditsText(checkout.credits)} for free:`,
        );
        line(ctx.output, checkout.checkoutUrl);
      } else {
        line(
          ctx.output,
          `${creditsText(checkout.credits)} for $${checkout.priceUsd}: open this page to pay:`,
        );
        line(ctx.output, checkout.checkoutUrl);
      }
      return 0;
    }
    const [account, packages] = await Promise.all([client.account.get(ctx), client.credits.packages(ctx)]);
    if (ctx.output.json) {
      printJson(ctx.output, { credits: account.credits, email: account.email, packages });
      return 0;
    }
    line(ctx.output, `${creditsText(account.credits)} (${account.email})`);
    line(ctx.output);
    table(
      ctx.output,
      ['PACKAGE', 'CREDITS', 'PRICE'],
      packages.map((p) => [p.id, p.credits, `$${p.priceUsd}`]),
    );
    return 0;
  },
};

export const usage: CommandSpec = {
  name: 'usage',
  summary: 'credit transactions, newest first',
  usage: '[--limit N] [--offset N] [--type TYPE]',
  details: `  --limit N    transactions to show (1–100, default 20)
  --offset N   skip the newest N
  --type TYPE  only grant, purchase, settled, hold, release or clawback`,
  options: { limit: { type: 'string' }, offset: { type: 'string' }, type: { type: 'string' } },
  positionals: [0, 0],
  async run(ctx) {
    const page = await ctx.client({ requireKey: true }).account.usage(
      {
        limit: ctx.int('limit', 1, 100) ?? 20,
        offset: ctx.int('offset', 0, 1e9),
        type: ctx.string('type'),
      },
      ctx,
    );
    if (ctx.output.json) {
      printJson(ctx.output, page);
      return 0;
    }
    table(
      ctx.output,
      ['WHEN', 'TYPE', 'AMOUNT', 'JOB', 'DESCRIPTION'],
      page.transactions.map((t) => [isoTime(t.created_at), t.type, t.amount, t.job_id, t.description]),
    );
    line(ctx.output, `${page.transactions.length} of ${page.total} transactions (offset ${page.offset})`);
    return 0;
  },
};

const JOB_STATES = ['queued', 'active', 'completed', 'failed', 'cancelled'];

export const jobs: CommandSpec = {
  name: 'jobs',
  summary: 'your jobs, newest first; `jobs ID` shows one job, `jobs cancel ID` stops one',
  usage: '[ID | cancel ID] [--status STATUS] [--limit N]',
  details: `  jobs ID          one job: its summary and result (a crawl's pages: \`unfurl crawl --job ID\`)
  jobs cancel ID   stop a queued or running job (a crawl keeps, and is billed for, the pages it has)
  --status STATUS  only queued, active, completed, failed or cancelled jobs
  --limit N        jobs to show (default 20; pages are fetched as needed)`,
  options: { status: { type: 'string' }, limit: { type: 'string' } },
  positionals: [0, 2],
  async run(ctx) {
    const client = ctx.client({ requireKey: true });
    const [id, cancelId] = ctx.positionals;
    if (id === 'cancel') {
      if (!cancelId) throw new UsageError('jobs cancel: which job? (`unfurl jobs cancel ID`)');
      const job = await client.cancelJob(cancelId, ctx);
      if (ctx.output.json) printJson(ctx.output, job);
      else if (job.status === 'cancelled') {
        line(
          ctx.output,
          `cancelled job ${job.id} (${job.credits} credit${job.credits === 1 ? '' : 's'} charged)`,
        );
      } else line(ctx.output, `job ${job.id} is stopping; \`unfurl jobs ${job.id}\` shows it`);
      return 0;
    }
    if (cancelId !== undefined) throw new UsageError('expected one job id (or `cancel ID`)');
    if (id) {
      const job = await client.jobs.get(id, ctx);
      if (ctx.output.json) printJson(ctx.output, job);
      else {
        const { result, ...summary } = job;
        fields(
          ctx.output,
          Object.entries(summary).map(([k, v]) => [
            k,
            /At$/.test(k) && typeof v === 'number' ? isoTime(v) : v,
          ]),
        );
        line(ctx.output, 'result:');
        line(ctx.output, JSON.stringify(result, null, 2));
        if (hasCrawlPages(job.queue)) {
          line(ctx.output, `pages: \`unfurl crawl --job ${job.id} --out DIR\` writes them as Markdown files`);
        }
      }
      return 0;
    }
    const status = ctx.string('status');
    if (status !== undefined && !JOB_STATES.includes(status)) {
      throw new UsageError(`--status: one of ${JOB_STATES.join(', ')}`);
    }
    const limit = ctx.int('limit', 1, 100_000) ?? 20;
    const rows = [];
    for await (const job of client.jobs.list({
      status: status as 'queued' | undefined,
      pageSize: Math.min(limit, 100),
      signal: ctx.signal,
    })) {
      rows.push(job);
      if (rows.length >= limit) break;
    }
    if (ctx.output.json) {
      printJson(ctx.output, { jobs: rows });
      return 0;
    }
    table(
      ctx.output,
      ['ID', 'KIND', 'STATUS', 'CREATED', 'DURATION', 'CREDITS', 'URL', 'ERROR'],
      rows.map((j) => [
        j.id,
        j.queue,
        j.status,
        isoTime(j.createdAt),
        j.durationMs === null ? '-' : `${(j.durationMs / 1000).toFixed(1)} s`,
        j.credits,
        j.url,
        j.error,
      ]),
    );
    if (rows.length === 0) line(ctx.output, 'no jobs');
    return 0;
  },
};
