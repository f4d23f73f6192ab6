// One error handler for every failure: the body is always {error, message, details, documentationUrl}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../../errors.js';
import { isFirecrawlPath } from '../../firecrawl/paths.js';
import { errorStatus, HttpError, retryAfterHeader } from '../error-status.js';
import { allowedMethods } from './allowed-methods.js';
import type { RouteEntry } from './auth.js';

interface ValidationItem {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

const CONTEXT_WORDS: Record<string, string> = {
  body: 'body field',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
};

/** Turns an ajv validation failure into a message that names the parameter. */
export function describeValidation(items: ValidationItem[], context: string | undefined): AppError {
  const first = items[0] ?? {};
  const where = CONTEXT_WORDS[context ?? ''] ?? 'parameter';
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (first.keyword === 'required') {
    const missing = [path, String(first.params?.missingProperty ?? '')].filter(Boolean).join('.');
    return new AppError('invalid_request', `Missing required ${where} '${missing}'`, missing);
  }
  if (first.keyword === 'additionalProperties') {
    const extra = [path, String(first.params?.additionalProperty ?? '')].filter(Boolean).join('.');
    return new AppError('invalid_request', `Unknown ${where} '${extra}'`, extra);
  }
  const name = path || (context === 'body' ? 'body' : 'request');
  let reason = first.message ?? 'is invalid';
  if (first.keyword === 'enum' && Array.isArray(first.params?.allowedValues)) {
    reason = `must be one of ${(first.params.allowedValues as unknown[]).map(String).join(', ')}`;
  }
  return new AppError('invalid_request', `Invalid ${where} '${name}': ${reason}`, name);
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

const INTERNAL = 'Something went wrong on our side; the request was not charged';

/**
 * True for errors whose HTTP status and message are meant for the client: Fastify's own (body
 * parsing, routing) and http-errors marked `expose`. A status carried by any other error (a
 * library's, e.g. the Stripe SDK's 401 for our own bad key) says nothing about the caller's request.
 */
function isClientFacing(err: FastifyError): boolean {
  return (
    (typeof err.code === 'string' && err.code.startsWith('FST_')) ||
    (err as { expose?: unknown }).expose === true
  );
}

/** Classifies anything thrown into the API's error shape; unknown errors become a bare 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err === null || typeof err !== 'object') return new AppError('internal_error', INTERNAL);
  const fe = err as FastifyError;
  if (fe.validation) return describeValidation(fe.validation as ValidationItem[], fe.validationContext);
  if (!isClientFacing(fe)) return new AppError('internal_error', INTERNAL);
  const status = fe.statusCode ?? 500;
  if (status === 413 || fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError('payload_too_large', 'The request body is too large');
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('unsupported_media_type', 'Send the body as application/json');
  }
  if (fe.code === 'FST_ERR_BAD_URL') {
    return new AppError('invalid_request', 'The URL path is not valid (bad percent-encoding)');
  }
  if (fe.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new AppError('invalid_request', 'A path parameter is too long');
  }
  if (status >= 400 && status < 500 && STATUS_CODES[status]) {
    const message = err instanceof SyntaxError ? 'The body is not valid JSON' : fe.message;
    return new AppError(STATUS_CODES[status]!, message);
  }
  return new AppError('internal_error', INTERNAL);
}

/** The body of every error answer. */
export function errorBody(docsBase: string, err: AppError) {
  return {
    error: err.code,
    message: err.message,
    details: err.details,
    documentationUrl: `${docsBase}/docs/reference#${err.code}`,
  };
}

export function sendError(reply: FastifyReply, docsBase: string, err: AppError) {
  if (err instanceof HttpError) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  if (err.retryAfterMs !== null) reply.header('Retry-After', retryAfterHeader(err.retryAfterMs));
  // Firecrawl's clients read `error` as the message (and our code as `code`).
  const body = isFirecrawlPath(reply.request.url)
    ? { success: false, error: err.message, code: err.code, details: err.details ?? null }
    : errorBody(docsBase, err);
  return reply.code(errorStatus[err.code]).type('application/json; charset=utf-8').send(body);
}

/** The answer for a request no route matched: a 405 with `Allow` when the path exists with other methods. */
export function noRouteError(routes: readonly RouteEntry[], method: string, path: string): AppError {
  const allow = allowedMethods(routes, path);
  if (allow.length > 0) {
    return new HttpError(
      'method_not_allowed',
      `${method} is not allowed on ${path}; use ${allow.join(' or ')}`,
      { Allow: allow.join(', ') },
    );
  }
  return new AppError('not_found', `No route ${method} ${path}`);
}

export function registerErrorHandling(app: FastifyInstance, docsBase: string, routes: readonly RouteEntry[]) {
  // Bodies are JSON only: Fastify's built-in text/plain parser would hand a text body to validation
  // (a 400 about its shape) where the answer is 415.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appErr = toAppError(err);
    if (appErr.code === 'internal_error') request.log.error({ err }, 'request failed');
    else if (errorStatus[appErr.code] >= 500) {
      // A platform or provider failing is expected weather, not a fault of ours: no stack, no alarm.
      request.log.warn({ code: appErr.code, status: errorStatus[appErr.code] }, appErr.message);
    } else request.log.info({ code: appErr.code, status: errorStatus[appErr.code] }, appErr.message);
    return sendError(reply, docsBase, appErr);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, docsBase, noRouteError(routes, request.method, request.url.split('?')[0]!)),
  );
}

/**
 * Fastify's `frameworkErrors` option: failures met before routing (a path that is not valid
 * percent-encoding, an over-long path parameter), which otherwise answer Fastify's own body
 * without our shape or an X-Request-Id.
 */
export function frameworkErrorHandler(docsBase: string) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Request-Id', request.id);
    const appErr = toAppError(err);
    request.log.info(
      { code: appErr.code, status: errorStatus[appErr.code], fastify: err.code },
      appErr.message,
    );
    sendError(reply, docsBase, appErr);
  };
}
