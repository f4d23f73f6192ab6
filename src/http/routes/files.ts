// A file a request or a job produced (a screenshot), answered to its owner until it expires. Another
// account's file is a 404 like one that never existed or has expired. Free: the request that made it
// paid for it.
import { Type } from '@sinclair/typebox';
import { notFound } from '../../errors.js';
import { FILE_TYPES, fileName } from '../../files/store.js';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import { errorResponses } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const Binary = { type: 'string', format: 'binary' } as const;

export const fileRoutes: RoutePlugin<Pick<HttpContext, 'files'>> = async (app, { files }) => {
  app.get(
    '/v1/files/:fileId',
    {
      schema: {
        tags: ['Files'],
        operationId: 'file',
        summary: 'A file a request produced (a screenshot), until it expires',
        description:
          'The bytes of a file one of your requests or jobs produced, such as a screenshot, at the `url` its ' +
          'answer gave. Readable with your API key until the file expires (with the job results: 24 h by ' +
          "default); free. Another account's file, like an unknown or expired one, is a 404.",
        params: Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: {
            description:
              'The file, with its type in `Content-Type`; `Cache-Control: private` until it expires',
            content: Object.fromEntries(Object.keys(FILE_TYPES).map((type) => [type, { schema: Binary }])),
          },
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const now = Date.now();
      const file = await files.get(fileId, principal(request).accountId, now);
      if (!file) throw notFound('file');
      const maxAge = Math.max(0, Math.floor((file.expiresAt - now) / 1000));
      return reply
        .type(file.contentType)
        .header('content-length', file.data.byteLength)
        .header('cache-control', `private, max-age=${maxAge}`)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('content-disposition', `inline; filename="${fileName(fileId, file.contentType)}"`)
        .send(file.data);
    },
  );
};
