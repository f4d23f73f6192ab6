// The error codes of the API (DESIGN §4) and the one error type services throw to produce them.

export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  transcript_unavailable: 404,
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
  ) {
    super(message);
    this.status = errorStatus[code];
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const invalid = (param: string, reason: string) =>
  new AppError('invalid_request', `Invalid parameter '${param}': ${reason}`, param);
