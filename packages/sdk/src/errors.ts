// One error type for everything that can go wrong: the API's error body, and the client's own
// failures (network, timeouts, failed jobs) under codes the API never uses.

/** The API's codes (DESIGN §4), then the client's own. The list stays open for codes added later. */
export type UnfurlErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'insufficient_credits'
  | 'forbidden'
  | 'not_found'
  | 'transcript_unavailable'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal_error'
  | 'upstream_error'
  | 'provider_unavailable'
  | 'service_unavailable'
  /** The server could not be reached, or the connection broke. */
  | 'network_error'
  /** The server answered something that is not the API's JSON. */
  | 'invalid_response'
  /** waitForJob ran out of time. */
  | 'job_timeout'
  /** The job ended in `failed`. */
  | 'job_failed'
  /** The job ended in `cancelled` (its owner stopped it). */
  | 'job_cancelled'
  | (string & {});

export interface UnfurlErrorInit {
  code: UnfurlErrorCode;
  /** HTTP status; 0 for failures that have no answer (network, timeouts). */
  status: number;
  message: string;
  details?: string | null;
  requestId?: string | null;
  documentationUrl?: string | null;
  /** How long the server asked to wait (429), in milliseconds. */
  retryAfterMs?: number | null;
  /** The failed or cancelled job's last poll answer (codes `job_failed`, `job_cancelled`). */
  job?: unknown;
  cause?: unknown;
}

export class UnfurlError extends Error {
  override readonly name = 'UnfurlError';
  readonly code: UnfurlErrorCode;
  readonly status: number;
  readonly details: string | null;
  readonly requestId: string | null;
  readonly documentationUrl: string | null;
  readonly retryAfterMs: number | null;
  readonly job: unknown;

  constructor(init: UnfurlErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? null;
    this.requestId = init.requestId ?? null;
    this.documentationUrl = init.documentationUrl ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.job = init.job;
  }
}

export const isUnfurlError = (err: unknown): err is UnfurlError => err instanceof UnfurlError;

/** The code for a status whose body was not the API's error JSON (a proxy's page, say). */
export function codeForStatus(status: number): UnfurlErrorCode {
  switch (status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'unauthorized';
    case 402:
      return 'insufficient_credits';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 429:
      return 'rate_limited';
    case 502:
      return 'upstream_error';
    case 503:
      return 'service_unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'invalid_request';
  }
}
