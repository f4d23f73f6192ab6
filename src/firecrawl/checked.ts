// A body built from Firecrawl's fields for one of our schemas: defaults applied and checked as our
// route would check it (ajv, as Fastify compiles route schemas), the first problem a 400 naming it.
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import { describeValidation } from '../http/plugins/errors.js';

const ajv = new Ajv({ useDefaults: true, coerceTypes: false, allErrors: false, strict: false });
const compiled = new WeakMap<TSchema, ValidateFunction>();

export function checked<T extends TSchema>(schema: T, value: unknown): Static<T> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const copy = structuredClone(value);
  if (!validate(copy)) throw describeValidation(validate.errors ?? [], 'body');
  return copy as Static<T>;
}
