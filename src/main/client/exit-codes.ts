// What the client's exit status means (documented in `unfurl --help` and README), and the status
// for each failure: usage mistakes, the API's error codes by family, the network, failed jobs.
import { UnfurlError } from '@unfurl/sdk';

export const EXIT = {
  ok: 0,
  /** Something unexpected (a bug): the message says what. */
  internal: 1,
  usage: 2,
  /** No key configured, or the key or session was refused (401). */
  auth: 3,
  insufficientCredits: 4,
  /** Any other 4xx: invalid parameter, not found, forbidden media, conflict, rate limit after retries. */
  refused: 5,
  /** The server or the platform behind it failed: 5xx, upstream_error, provider_unavailable. */
  server: 6,
  /** The server could not be reached, or did not answer in time. */
  network: 7,
  /** The job ended in `failed`, or did not end within --timeout. */
  job: 8,
  /** Interrupted (Ctrl-C). */
  interrupted: 130,
} as const;

export const EXIT_CODES_HELP = `exit codes (client commands):
  0  ok
  1  unexpected error
  2  usage error (unknown command, missing or bad argument)
  3  authentication: no API key configured (run \`unfurl login\`), or it was refused (401)
  4  insufficient credits (402): buy more with \`unfurl credits buy <package>\`
  5  request refused: any other 4xx (invalid parameter, not found, forbidden, conflict, rate limited)
  6  server or upstream failure: 5xx (upstream_error, provider_unavailable, internal_error)
  7  network: the server could not be reached or did not answer
  8  the job failed, or did not end within --timeout
  130 interrupted`;

/** Thrown for command-line mistakes; answered with the command's usage and exit code 2. */
export class UsageError extends Error {}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (!(err instanceof UnfurlError)) return EXIT.internal;
  switch (err.code) {
    case 'network_error':
      return EXIT.network;
    case 'job_failed':
    case 'job_timeout':
      return EXIT.job;
    case 'unauthorized':
      return EXIT.auth;
    case 'insufficient_credits':
      return EXIT.insufficientCredits;
  }
  if (err.status === 401) return EXIT.auth;
  if (err.status === 402) return EXIT.insufficientCredits;
  if (err.status >= 500 || err.code === 'invalid_response') return EXIT.server;
  if (err.status >= 400) return EXIT.refused;
  return EXIT.internal;
}
