// The instance type our route plugins and route helpers take: the TypeBox type provider types each
// handler's params, query, body and headers from the schema it registers, so no handler casts them.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

export type {
  FastifyPluginAsyncTypebox as RoutePlugin,
  TypeBoxTypeProvider,
} from '@fastify/type-provider-typebox';

export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
