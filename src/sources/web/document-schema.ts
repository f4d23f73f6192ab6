// The published shape of a scrape with formats (documents.ts): POST /v1/web/scrape's answer and each
// result of a batch scrape. Fields appear only when their format was asked for.
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../schemas.js';

const Metadata = Type.Object({
  title: Nullable(Type.String()),
  description: Nullable(Type.String()),
  language: Nullable(Type.String({ description: 'As the page declares it (<html lang>)' })),
  ogUrl: Nullable(Type.String()),
  ogImage: Nullable(Type.String()),
  sourceURL: Type.String({ description: 'The URL asked for' }),
  url: Type.String({ description: 'The URL answered, after redirects' }),
  statusCode: Type.Integer(),
  pdfPages: Type.Optional(
    Type.Object({
      total: Type.Integer({ description: 'Pages in the file' }),
      read: Type.Integer({ description: 'Pages read (maxPages)' }),
      ocr: Type.Integer({ description: 'Pages read by OCR, having no text layer' }),
    }),
  ),
  cacheState: StringEnum(['hit', 'miss'] as const),
  cachedAt: Type.String({ description: 'When the page was fetched (ISO 8601)' }),
});

export const ScrapeDocumentSchema = Type.Object(
  {
    url: Type.String({ description: 'The final URL, after redirects' }),
    markdown: Type.Optional(Type.String()),
    html: Type.Optional(
      Type.String({ description: 'The cleaned content (main content unless onlyMainContent is false)' }),
    ),
    rawHtml: Type.Optional(Type.String({ description: 'The page as fetched (or as the browser left it)' })),
    links: Type.Optional(
      Type.Array(
        Type.Object({
          url: Type.String(),
          text: Type.String({ description: 'The anchor text' }),
          internal: Type.Boolean({ description: 'On the same site as the page' }),
        }),
      ),
    ),
    images: Type.Optional(Type.Array(Type.Object({ url: Type.String(), alt: Nullable(Type.String()) }))),
    screenshot: Type.Optional(
      Type.String({
        description:
          'A PNG: the URL of the stored file (GET it with your API key until it expires), or a data: URL',
      }),
    ),
    json: Type.Optional(Type.Unknown({ description: 'What the language model extracted' })),
    summary: Type.Optional(Type.String()),
    actions: Type.Optional(
      Type.Object({
        screenshots: Type.Array(Type.String()),
        scrapes: Type.Array(Type.Object({ url: Type.String(), html: Type.String() })),
        javascriptReturns: Type.Array(Type.Object({ type: Type.String(), value: Type.Unknown() })),
      }),
    ),
    metadata: Metadata,
    warning: Type.Optional(Type.String()),
  },
  { $id: 'ScrapeDocument', title: 'ScrapeDocument' },
);
