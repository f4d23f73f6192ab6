// The HTTP status of each error code: the one place errors meet HTTP (services raise codes).
import { AppError, type ErrorCode } from '../errors.js';

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
} as const satisfies Record<ErrorCode, number>;

/** Retry-After in whole seconds (at least 1) for advice given in milliseconds. */
export const retryAfterHeader = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

/** An error only the HTTP layer raises, with headers of its own (a 405's Allow). */
export class HttpError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(code, message);
  }
}
