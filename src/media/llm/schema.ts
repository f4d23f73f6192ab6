// JSON Schemas from callers (and from the model) are untrusted: ajv compiles schemas into code, so
// they are capped in size and depth, their regexes run on a linear-time engine (RE2), and they
// must describe an object (what structured-output APIs answer with). Compiled validators are cached.
import { createHash } from 'node:crypto';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';

export const MAX_SCHEMA_BYTES = 32 * 1024;
export const MAX_SCHEMA_DEPTH = 16;

export type JsonSchema = Record<string, unknown>;

const re2 = Object.assign((pattern: string) => RE2JS.compile(pattern), { code: 're2js' });

const ajv = new Ajv2020({
  allErrors: true,
  strict: false,
  validateFormats: false,
  code: { regExp: re2 },
});

/** Whether `value` nests more than `max` levels; never walks further than that (no deep recursion). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  if (!value || typeof value !== 'object') return false;
  if (max === 0) return true;
  return Object.values(value as object).some((v) => nestsDeeperThan(v, max - 1));
}

/** The schema as we send and compile it: `$schema`/`$id` dropped (drafts differ; ids could clash). */
export function normaliseSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** Why `schema` cannot be used, or null when it can. */
export function schemaProblem(schema: unknown): string | null {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
  // Depth first: serialising a schema nested thousands of levels deep would exhaust the stack.
  if (nestsDeeperThan(schema, MAX_SCHEMA_DEPTH)) return `nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > MAX_SCHEMA_BYTES) return `is ${bytes} bytes; at most ${MAX_SCHEMA_BYTES}`;
  const s = normaliseSchema(schema as JsonSchema);
  if (s.type !== 'object') return 'must describe an object ("type": "object" at the top)';
  if (!ajv.validateSchema(s))
    return `is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'schema' })}`;
  try {
    validatorFor(s);
  } catch (err) {
    return `cannot be compiled: ${(err as Error).message.slice(0, 200)}`;
  }
  return null;
}

const compiled = new Map<string, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(schema);
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, v);
  }
  return v;
}

/** The problems of `data` against `schema` (empty when it matches). */
export function validateAgainst(schema: JsonSchema, data: unknown): string[] {
  const v = validatorFor(normaliseSchema(schema));
  if (v(data)) return [];
  return (v.errors ?? []).slice(0, 20).map(describeError);
}

function describeError(e: ErrorObject): string {
  return `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${
    e.keyword === 'additionalProperties'
      ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
      : ''
  }`;
}

/**
 * Whether OpenAI-style strict mode can take the schema as it is: every object lists all its
 * properties as required and forbids others. Otherwise it is sent with strict: false.
 */
export function strictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  if (!schema || typeof schema !== 'object') return true;
  const s = schema as JsonSchema;
  if (s.type === 'object' || s.properties) {
    const props = Object.keys((s.properties as object) ?? {});
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    if (s.additionalProperties !== false || props.some((p) => !required.has(p))) return false;
  }
  return Object.values(s).every(strictCompatible);
}
