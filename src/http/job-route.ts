// The one way a route creates a job: validate, honour Idempotency-Key, check webhookUrl, hold the
// credits and answer 202 {jobId}. Capabilities call this with their path, kind and body schema.
import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { principal } from './plugins/auth.js';
import { sizingJob } from './plugins/billing.js';
import { errorResponses } from './schemas/common.js';
import type { TypedApp } from './typed.js';

export const WebhookUrl = Type.String({
  maxLength: 2048,
  description: 'Called (Standard Webhooks, signed with your webhookSecret) when the job completes or fails',
});

export const JobAccepted = Type.Object({ jobId: Type.String() });

/** A job POST's validated body: the kind's own fields and the optional webhookUrl every job takes. */
export type JobBody<T extends TObject> = Static<T> & { webhookUrl?: string };

export interface JobRouteOptions<T extends TObject> {
  path: string;
  /** Also answered at these paths (hidden from OpenAPI, named in the description of `path`). */
  aliases?: readonly string[];
  kind: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Body schema without webhookUrl (added here). */
  body: T;
  /** Maps the validated body to the job input (default: the body without webhookUrl). */
  toInput?(body: JobBody<T>, request: FastifyRequest): unknown | Promise<unknown>;
  /** toInput may fetch upstream (short links, media lookups): it then runs under `sizingJob`'s hold. */
  toInputFetches?: boolean;
}

function idempotencyKey(request: FastifyRequest): string | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError(
      'invalid_request',
      "Invalid header 'Idempotency-Key': 1–255 visible ASCII characters",
      'Idempotency-Key',
    );
  }
  return key;
}

/** 202 {jobId} with the credit headers of an accepted job (nothing charged yet, what is held). */
export async function sendJobAccepted(
  reply: FastifyReply,
  ledger: FastifyInstance['services']['ledger'],
  accountId: string,
  jobId: string,
): Promise<FastifyReply> {
  reply.header('X-Credits-Charged', '0');
  reply.header('X-Credits-Held', String(await ledger.heldFor(jobId)));
  reply.header('X-Credits-Remaining', String(await ledger.balance(accountId)));
  return reply.code(202).send({ jobId });
}

/** Registers a job kind's POST; `toInput` gets the body typed from the `body` schema. */
export function jobRoute<T extends TObject>(app: TypedApp, opts: JobRouteOptions<T>): void {
  // The body is validated against `opts.body` (plus webhookUrl) before `toInput` sees it, so
  // routing it as any object body is sound; only the caller's view needs T.
  registerJobRoute(app, opts);
}

function registerJobRoute(app: TypedApp, opts: JobRouteOptions<TObject>): void {
  const { jobs, fetcher, ledger } = app.services;
  const body = Type.Composite([opts.body, Type.Object({ webhookUrl: Type.Optional(WebhookUrl) })], {
    additionalProperties: false,
  });
  const schema = {
    tags: opts.tags,
    summary: opts.summary,
    body,
    headers: Type.Object({
      'idempotency-key': Type.Optional(
        Type.String({ description: 'Same key and body within 24 h → the same job; another body → 409' }),
      ),
    }),
    response: { 202: JobAccepted, ...errorResponses(400, 401, 402, 409, 429) },
  };
  const aliases = opts.aliases ?? [];
  const also = aliases.length ? `Also answered at ${aliases.map((p) => `\`${p}\``).join(', ')}.` : '';
  const description = [opts.description, also].filter(Boolean).join('\n\n');
  const handler = async (request: FastifyRequest<{ Body: JobBody<TObject> }>, reply: FastifyReply) => {
    const { accountId } = principal(request);
    const key = idempotencyKey(request);
    const { webhookUrl, ...rest } = request.body;
    if (webhookUrl !== undefined) await fetcher.checkResolvedUrl(webhookUrl, 'webhookUrl');
    const toInput = opts.toInput;
    const input = !toInput
      ? rest
      : opts.toInputFetches
        ? await sizingJob(request, async () => toInput(request.body, request))
        : await toInput(request.body, request);
    const { jobId } = await jobs.service.submit({
      accountId,
      kind: opts.kind,
      input,
      webhookUrl: webhookUrl ?? null,
      idempotencyKey: key,
    });
    return sendJobAccepted(reply, ledger, accountId, jobId);
  };
  app.post(opts.path, { schema: { ...schema, ...(description && { description }) } }, handler);
  for (const alias of aliases) app.post(alias, { schema: { ...schema, hide: true } }, handler);
}
