// @unfurl/sdk — a typed client for the Unfurl API, with nothing but the global fetch underneath.
export {
  isJobAccepted,
  type JobRequestOptions,
  type RequestOptions,
  Unfurl,
  type UnfurlOptions,
} from './client.js';
export type { CrawlAndWaitOptions, CrawlResult } from './crawl-wait.js';
export {
  codeForStatus,
  isUnfurlError,
  UnfurlError,
  type UnfurlErrorCode,
  type UnfurlErrorInit,
} from './errors.js';
export type { CrawlPagesOptions, CursorListOptions, ListJobsOptions, WaitOptions } from './polling.js';
export { skipOf } from './polling.js';
export { pagedKinds, pollRouteOfKind, type RouteName, routes } from './routes.js';
export type { Answer, CreditHeaders, RetryOptions, TransportOptions } from './transport.js';
export { apiRoot, parseRetryAfter } from './transport.js';
export type * from './types.js';
