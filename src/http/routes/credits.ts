import { Type } from '@sinclair/typebox';
import { creditPackages } from '../../billing/packages.js';
import { AppError } from '../../errors.js';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import { errorResponses } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const Package = Type.Object({
  id: Type.String(),
  credits: Type.Integer(),
  priceUsd: Type.String({ description: 'US dollars, two decimals' }),
});

/** The package a purchase names, as package_id or packageId (both: they must agree). */
function packageIdOf(body: { package_id?: string; packageId?: string }): string {
  const { package_id: snake, packageId: camel } = body;
  if (snake !== undefined && camel !== undefined && snake !== camel) {
    throw new AppError(
      'invalid_request',
      `Body fields 'package_id' (${snake}) and 'packageId' (${camel}) disagree; send one of them`,
      'packageId',
    );
  }
  const id = snake ?? camel;
  if (id === undefined)
    throw new AppError('invalid_request', "Missing required body field 'package_id'", 'package_id');
  return id;
}

export const creditRoutes: RoutePlugin<Pick<HttpContext, 'checkouts'>> = async (app, deps) => {
  const { checkouts } = deps;

  app.get(
    '/v1/credits/packages',
    {
      config: { public: true },
      schema: {
        tags: ['Credits'],
        operationId: 'packages',
        summary: 'Credit packages on sale (no key needed)',
        security: [],
        response: {
          200: Type.Object({
            packages: Type.Array(Package),
            checkout: Type.Union([Type.Literal('stripe'), Type.Literal('test'), Type.Literal('off')], {
              description:
                'How purchases are paid on this server: stripe, test (no payment is taken: a test-mode page adds the credits) or off (extension)',
            }),
          }),
        },
      },
    },
    async () => ({ packages: [...creditPackages], checkout: checkouts.paymentMode }),
  );

  app.post(
    '/v1/credits/purchase',
    {
      schema: {
        tags: ['Credits'],
        operationId: 'purchase',
        summary: 'Start buying a package: answers the checkout URL to open',
        // The spec names it package_id; packageId (how the answer and the SDKs spell it) is taken too.
        body: Type.Object(
          {
            package_id: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 64,
                description: 'A package id (GET /v1/credits/packages)',
              }),
            ),
            packageId: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 64,
                description: 'The same as package_id (either one)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            id: Type.String({ description: 'Checkout id' }),
            checkoutUrl: Type.String(),
            packageId: Type.String(),
            credits: Type.Integer(),
            priceUsd: Type.String(),
          }),
          ...errorResponses(400, 401, 403, 429, 502),
        },
      },
    },
    async (request) => checkouts.purchase(principal(request).accountId, packageIdOf(request.body)),
  );
};
