// POST /v1/extract: structured data from a video as a job; polled at GET /v1/extract/{jobId}
// (the shared poll routes; its `error` is an object). The schema is checked here: a bad one is a 400.
import { Type } from '@sinclair/typebox';
import { AppError, invalid } from '../../errors.js';
import { WAIT_NOTE } from '../../mcp/tools.js';
import { requireProvider } from '../../media/ai/providers.js';
import { EXTRACT_KIND, type ExtractInput, extractPoll } from '../../media/extract-job.js';
import { MAX_SCHEMA_BYTES, schemaProblem } from '../../media/llm/schema.js';
import type { HttpContext } from '../context.js';
import { jobRoute, pollRoute } from '../job-route.js';
import type { RoutePlugin } from '../typed.js';

const ExtractBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'Video URL' }),
  prompt: Type.Optional(
    Type.String({ maxLength: 4000, description: 'What to extract (guides the content)' }),
  ),
  schema: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: `JSON Schema of the answer (type object, ≤ ${MAX_SCHEMA_BYTES / 1024} KB)`,
      },
    ),
  ),
});

type ExtractDeps = Pick<HttpContext, 'platforms' | 'config' | 'jobs' | 'fetcher' | 'charges'>;

export const extractRoutes: RoutePlugin<ExtractDeps> = async (app, deps) => {
  const { platforms, config } = deps;
  jobRoute(app, deps, {
    path: '/v1/extract',
    kind: EXTRACT_KIND,
    tags: ['Videos'],
    operationId: 'extract',
    mcp: {
      name: 'extract',
      description: `Structured data from a video with AI, following a prompt and/or a JSON Schema (a job). ${WAIT_NOTE}`,
      wait: true,
    },
    summary: 'Structured data from a video with AI (a job): poll GET /v1/extract/{jobId}',
    description:
      'At least one of `prompt` and `schema`. The transcript (captions, else speech recognition) and key ' +
      'frames go to the language model with `response_format: json_schema`; the answer is validated against ' +
      'the schema (one repair round, then the job fails). Without `schema` the model proposes one, returned ' +
      'in `schema`. 5 credits per started minute of video, minimum 5 (held at acceptance; the rest once the ' +
      'video is measured). 503 `provider_unavailable` when no language model is configured.',
    body: ExtractBody,
    toInputFetches: true,
    toInput: async (body): Promise<ExtractInput> => {
      // Unsupported or malformed URLs are a 400 now, not a failed job later.
      const ref = await platforms.recognise(body.url);
      const prompt = body.prompt?.trim();
      if (!prompt && body.schema === undefined) {
        throw new AppError('invalid_request', "Give 'prompt', 'schema' or both", 'prompt');
      }
      if (body.schema !== undefined) {
        const problem = schemaProblem(body.schema);
        if (problem) throw invalid('schema', problem);
      }
      requireProvider(config.ai.llm, 'a language model');
      return {
        url: ref.url,
        ...(prompt && { prompt }),
        ...(body.schema !== undefined && { schema: body.schema }),
      };
    },
  });

  pollRoute(app, deps, {
    path: '/v1/extract/:jobId',
    kinds: [EXTRACT_KIND],
    poll: extractPoll,
    operationId: 'extractPoll',
    summary: 'Poll an extract job',
  });
};
