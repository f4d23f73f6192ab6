// `unfurl admin …`: operator commands that act on the database directly.
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';

const USAGE = `usage:
  unfurl admin credits grant --email E --amount N --reason TEXT
  unfurl admin credits clawback --email E --amount N --reason TEXT`;

export async function admin(config: Config, argv: string[]): Promise<number> {
  const [area, action, ...rest] = argv;
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
