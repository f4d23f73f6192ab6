// One error handler for every failure: the body is always {error, message, details, documentationUrl}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../../errors.js';

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
  405: 'invalid_request',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** Classifies anything thrown into the API's error shape; unknown errors become a bare 500. */
export function toAppError(err: FastifyError | Error): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError;
  if (fe.validation) return describeValidation(fe.validation as ValidationItem[], fe.validationContext);
  const status = fe.statusCode ?? 500;
  if (status === 413 || fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError('payload_too_large', 'The request body is too large');
  }
  if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('unsupported_media_type', 'Send the body as application/json');
  }
  if (status >= 400 && status < 500 && STATUS_CODES[status]) {
    const message = err instanceof SyntaxError ? 'The body is not valid JSON' : err.message;
    return new AppError(STATUS_CODES[status]!, message);
  }
  return new AppError('internal_error', 'Something went wrong on our side; the request was not charged');
}

export function sendError(reply: FastifyReply, docsBase: string, err: AppError) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send({
      error: err.code,
      message: err.message,
      details: err.details,
      documentationUrl: `${docsBase}/docs/reference#${err.code}`,
    });
}

export function registerErrorHandling(app: FastifyInstance, docsBase: string) {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appErr = toAppError(err);
    if (appErr.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: appErr.code, status: appErr.status }, appErr.message);
    return sendError(reply, docsBase, appErr);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      docsBase,
      new AppError('not_found', `No route ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
}
