// TypeBox helpers shared by every layer that declares a schema (routes, job kinds' inputs): they know
// nothing of HTTP, so media/ and sources/ can use them without reaching into http/.
import { type TSchema, Type } from '@sinclair/typebox';

/** A string limited to given values, as a plain JSON-Schema enum (clear errors, clean OpenAPI). */
export const StringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
