// The error codes of the API and the one error type services, jobs and providers throw. It says
// nothing of HTTP: http/ maps its code to a status and its retry advice to Retry-After; the job
// engine reads from it whether another attempt may succeed.

/** Every error code the API answers; `http/error-status.ts` gives each its HTTP status. */
export const errorCodes = [
  'invalid_request',
  'unauthorized',
  'insufficient_credits',
  'forbidden',
  'not_found',
  'transcript_unavailable',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'upstream_error',
  'provider_unavailable',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export class AppError extends Error {
  /** When the caller may try again (a rate limit, a bench), in milliseconds; null: no advice. */
  readonly retryAfterMs: number | null;
  /** For a job's failure: whether another attempt may succeed (null: the job engine goes by the code). */
  readonly retryable: boolean | null;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The parameter at fault, or more about the failure. */
    readonly details: string | null = null,
    more: { retryAfterMs?: number; retryable?: boolean } = {},
  ) {
    super(message);
    this.retryAfterMs = more.retryAfterMs ?? null;
    this.retryable = more.retryable ?? null;
  }
}

/** A failure another attempt may fix: a job goes back to its queue with backoff. */
export const retryable = (message: string, code: ErrorCode = 'upstream_error') =>
  new AppError(code, message, null, { retryable: true });

/** A failure no further attempt will fix: the job fails at once. */
export const permanent = (message: string, code: ErrorCode = 'invalid_request') =>
  new AppError(code, message, null, { retryable: false });

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const invalid = (param: string, reason: string) =>
  new AppError('invalid_request', `Invalid parameter '${param}': ${reason}`, param);
