// Waiting for a job from the command line: --no-wait answers the job id at once; otherwise the job
// is polled (a spinner on a terminal) until it ends or --timeout seconds pass.
import type { JobKind, PollAnswers } from '@unfurl/sdk';
import type { CommandContext } from './context.js';
import { line, printJson } from './output.js';

export const WAIT_OPTIONS = {
  'no-wait': { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

export const WAIT_HELP = `  --no-wait          print the job id and exit; poll later with \`unfurl jobs ID\`
  --timeout SECONDS  give up waiting after this long (default 600; exit code 8)`;

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
  } finally {
    progress.stop();
  }
}
