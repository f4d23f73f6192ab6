// Waiting for a job from the command line: --no-wait answers the job id at once; otherwise the job
// is polled (a spinner on a terminal) until it ends or --timeout seconds pass. Ctrl-C while waiting
// cancels the job on the server (and says so), or with --detach leaves it running.
import { type Job, type JobKind, type PollAnswers, UnfurlError } from '@unfurl/sdk';
import type { CommandContext } from './context.js';
import { line, printJson } from './output.js';

export const WAIT_OPTIONS = {
  'no-wait': { type: 'boolean' },
  detach: { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

export const WAIT_HELP = `  --no-wait          print the job id and exit; poll later with \`unfurl jobs ID\`
  --detach           on Ctrl-C, leave the job running and print its id (default: cancel it)
  --timeout SECONDS  give up waiting after this long (default 600; exit code 8)`;

const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;

/**
 * Ctrl-C while waiting for a job: asks the server to cancel it and says what came of it, or with
 * --detach leaves it running and says how to find it. Answers the cancelled job (null when it was
 * left running or could not be cancelled); never throws, so the interruption stands.
 */
export async function stopOnInterrupt(ctx: CommandContext, jobId: string): Promise<Job | null> {
  const err = ctx.output.err;
  if (ctx.values.detach === true) {
    err.write(
      `job ${jobId} left running (--detach): \`unfurl jobs ${jobId}\` shows it, \`unfurl jobs cancel ${jobId}\` stops it\n`,
    );
    return null;
  }
  err.write(`cancelling job ${jobId} (Ctrl-C again to quit at once; --detach leaves jobs running)\n`);
  try {
    const job = await ctx.client().cancelJob(jobId, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) });
    err.write(
      job.status === 'cancelled'
        ? `cancelled job ${jobId} on the server (${credits(job.credits)} charged)\n`
        : `job ${jobId} is stopping on the server; \`unfurl jobs ${jobId}\` shows it\n`,
    );
    return job;
  } catch (e) {
    const why = e instanceof UnfurlError || e instanceof Error ? e.message : String(e);
    err.write(`could not cancel job ${jobId}: ${why}\n`);
    return null;
  }
}

/** How long the cancel request after a Ctrl-C may take. */
const CANCEL_TIMEOUT_MS = 15_000;

/** True when the command should stop after printing the job id (--no-wait). */
export function answeredJobId(ctx: CommandContext, jobId: string): boolean {
  if (ctx.values['no-wait'] !== true) return false;
  if (ctx.output.json) printJson(ctx.output, { jobId });
  else line(ctx.output, jobId);
  return true;
}

export async function waitWithSpinner<K extends JobKind>(
  ctx: CommandContext,
  jobId: string,
  kind: K,
): Promise<PollAnswers[K]> {
  const timeoutS = ctx.int('timeout', 1, 86_400) ?? 600;
  const progress = ctx.progress();
  const started = Date.now();
  try {
    return await ctx.client().waitForJob(jobId, {
      kind,
      timeoutMs: timeoutS * 1000,
      intervalMs: 1000,
      signal: ctx.signal,
      onPoll: (answer) => {
        const status = (answer as { status?: string }).status ?? '';
        progress.update(
          0,
          null,
          `${kind} job ${jobId}: ${status} (${Math.round((Date.now() - started) / 1000)} s)`,
        );
      },
    });
  } catch (err) {
    if (ctx.signal.aborted) {
      progress.stop();
      await stopOnInterrupt(ctx, jobId);
    }
    throw err;
  } finally {
    progress.stop();
  }
}
