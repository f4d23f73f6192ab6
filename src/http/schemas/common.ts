// Schemas shared by many routes. They validate requests and are the source of /openapi.json.
import { type TSchema, Type } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Short machine-readable type, e.g. invalid_request' }),
    message: Type.String({ description: 'What went wrong, for a person' }),
    details: Type.Union([Type.String(), Type.Null()]),
    documentationUrl: Type.String(),
  },
  {
    $id: 'Error',
    title: 'Error',
    examples: [
      {
        error: 'invalid_request',
        message: "Missing required query parameter 'url'",
        details: 'url',
        documentationUrl: 'http://127.0.0.1:8080/docs/reference#invalid_request',
      },
    ],
  },
);

export { Nullable, StringEnum } from '../../schemas.js';

export const Limit = (max = 100, dflt = 20) =>
  Type.Integer({ minimum: 1, maximum: max, default: dflt, description: `Items per page (1–${max})` });
// Bounded so that a huge offset is a 400, not a number the database rejects (a 500).
export const MAX_OFFSET = 1_000_000_000;
export const Offset = Type.Integer({
  minimum: 0,
  maximum: MAX_OFFSET,
  default: 0,
  description: `Items to skip (0–${MAX_OFFSET})`,
});

/** Standard error answers added to every route's response schema, by status. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, TSchema> = {};
  for (const s of statuses) out[s] = Type.Ref('Error');
  return out;
}

export const BillingHeaders = {
  'X-Credits-Charged': Type.Integer({ description: 'Credits this request cost' }),
  'X-Credits-Remaining': Type.Integer({ description: 'Balance after this request' }),
};
