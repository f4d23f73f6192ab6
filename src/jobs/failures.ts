// What a failed attempt means: whether another attempt may succeed, and what the caller is told.
import { AppError } from '../errors.js';

const RETRYABLE_CODES = new Set([
  'upstream_error',
  'provider_unavailable',
  'rate_limited',
  'service_unavailable',
]);

/** Whether a failure is worth another attempt, and what to tell the caller. */
export function classify(err: unknown): { retryable: boolean; code: string; message: string } {
  if (err instanceof AppError) {
    return {
      retryable: err.retryable ?? RETRYABLE_CODES.has(err.code),
      code: err.code,
      message: err.message,
    };
  }
  if ((err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError') {
    return { retryable: true, code: 'upstream_error', message: 'timed out' };
  }
  // Unknown faults (network resets, bugs) get the remaining attempts; their text stays in our logs.
  return { retryable: true, code: 'internal_error', message: 'internal error while running the job' };
}
