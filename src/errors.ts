// The error codes of the API and the one error type services, jobs and providers throw:
// routes answer it, and the job engine reads from it whether another attempt may succeed.

export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  transcript_unavailable: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
  provider_unavailable: 503,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: string | null = null,
    readonly headers: Record<string, string> = {},
    /** For a job's failure: whether another attempt may succeed (null: the job engine goes by the code). */
    readonly retryable: boolean | null = null,
  ) {
    super(message);
    this.status = errorStatus[code];
  }
}

/** A failure another attempt may fix: a job goes back to its queue with backoff. */
export const retryable = (message: string, code: ErrorCode = 'upstream_error') =>
  new AppError(code, message, null, {}, true);

/** A failure no further attempt will fix: the job fails at once. */
export const permanent = (message: string, code: ErrorCode = 'invalid_request') =>
  new AppError(code, message, null, {}, false);

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const invalid = (param: string, reason: string) =>
  new AppError('invalid_request', `Invalid parameter '${param}': ${reason}`, param);
