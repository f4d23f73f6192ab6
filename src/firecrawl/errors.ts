// Firecrawl's error answer: `error` is the message its clients show; `code` is ours (snake_case).
import { type TSchema, Type } from '@sinclair/typebox';

export const FirecrawlErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'What went wrong' }),
    code: Type.String({ description: "Unfurl's error code (the same as its own routes answer)" }),
    details: Type.Union([Type.String(), Type.Null()], { description: 'The parameter or item at fault' }),
  },
  { $id: 'FirecrawlError', title: 'FirecrawlError' },
);

/** The Firecrawl error answer, for each of these statuses. */
export function firecrawlErrors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, Type.Ref('FirecrawlError')]));
}
