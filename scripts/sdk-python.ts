// Writes the generated files of the Python SDK (packages/python/unfurl/) from the server's own
// /openapi.json and from the SDK's async client:
//   _routes.py   every operation by name: method, path, where its arguments go, their wire names
//   types.py     TypedDicts of every operation's arguments (snake_case keyword arguments) and answers
//   _version.py  the server's version (package.json), so the wheel's version is in step with it
//   _client.py   the blocking client, written from _async_client.py by dropping async/await (one
//                source for both clients, as httpcore does with unasync)
// `npm run sdk:python` rewrites them; test/python/openapi-drift.test.ts fails while a committed file
// differs from what this writes now.
//
//   npm run sdk:python            rewrite the files
//   npm run sdk:python -- --check exit 1 when one is stale
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sdkOperations, servedDocument } from './sdk-routes.js';

const WIDTH = 100;

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema as /openapi.json writes it
type Schema = any;

interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: { in: string; name: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  'x-job-kinds'?: string[];
  'x-paged'?: boolean;
}

export interface PythonDocument {
  paths?: Record<string, Partial<Record<string, Operation>> | undefined>;
  components?: { schemas?: Record<string, Schema> };
}

/** The SDK package's folder and its generated files, relative to the repository root. */
export const PYTHON_PACKAGE = 'packages/python/unfurl';
export const PYTHON_GENERATED = ['_routes.py', 'types.py', '_version.py', '_client.py'] as const;
export const ASYNC_CLIENT = '_async_client.py';

const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

const pascal = (name: string) =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');

/** A wire name as a Python keyword argument: chunkSize → chunk_size, deduplicateSimilarURLs → …_urls, from → from_. */
export function snakeName(wire: string): string {
  const snake = wire
    // A plural acronym is one word: URLs → Urls.
    .replace(/([A-Z]{2,})s(?=[A-Z]|$)/g, (_, acronym: string) => `${acronym[0]}${acronym.slice(1).toLowerCase()}s`)
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase();
  return PY_KEYWORDS.has(snake) ? `${snake}_` : snake;
}

const isIdentifier = (key: string) => /^[A-Za-z_]\w*$/.test(key) && !PY_KEYWORDS.has(key);
const pyString = (text: string) => JSON.stringify(text);
const pyLiteral = (value: unknown): string =>
  value === null ? 'None' : value === true ? 'True' : value === false ? 'False' : JSON.stringify(value);

/** `prefix` + text wrapped at WIDTH (a comment block). */
function wrapComment(text: string, prefix: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    if (line && prefix.length + line.length + 1 + word.length > WIDTH) {
      lines.push(prefix + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(prefix + line);
  return lines;
}

/** JSON Schema → Python annotations, collecting the TypedDicts it needs (each shape once, before its users). */
class TypeWriter {
  readonly blocks: string[] = [];
  private readonly shapes = new Map<string, string>();
  private readonly used = new Set<string>();

  constructor(private readonly components: Record<string, Schema>) {}

  private uniqueName(hint: string): string {
    let name = hint;
    for (let i = 2; this.used.has(name); i++) name = `${hint}${i}`;
    this.used.add(name);
    return name;
  }

  annotation(schema: Schema, hint: string): string {
    if (!schema || typeof schema !== 'object') return 'Any';
    if (schema.$ref) return String(schema.$ref).replace('#/components/schemas/', '');
    if (schema.enum) return `Literal[${schema.enum.map(pyLiteral).join(', ')}]`;
    if ('const' in schema) return `Literal[${pyLiteral(schema.const)}]`;
    const variants = schema.anyOf ?? schema.oneOf;
    if (variants) {
      let objects = 0;
      const members = variants.map((v: Schema) =>
        this.annotation(v, v?.type === 'object' && v.properties && objects++ > 0 ? `${hint}${objects}` : hint),
      );
      return union(members);
    }
    if (schema.allOf) {
      const merged = { type: 'object', properties: {} as Record<string, Schema>, required: [] as string[] };
      for (const part of schema.allOf) {
        Object.assign(merged.properties, part.properties ?? {});
        merged.required.push(...(part.required ?? []));
      }
      return this.annotation(merged, hint);
    }
    if (Array.isArray(schema.type)) return union(schema.type.map((t: string) => this.annotation({ type: t }, hint)));
    switch (schema.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `list[${this.annotation(schema.items, `${hint}Item`)}]`;
      case 'object':
        if (schema.properties && Object.keys(schema.properties).length > 0) {
          return this.typedDict(hint, schema.properties, schema.required ?? [], schema.description);
        }
        if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          return `dict[str, ${this.annotation(schema.additionalProperties, `${hint}Value`)}]`;
        }
        return 'dict[str, Any]';
      default:
        return 'Any';
    }
  }

  /** A TypedDict for `properties` (keys as given, or renamed by `keyOf`); answers its name. */
  typedDict(
    hint: string,
    properties: Record<string, Schema>,
    required: string[],
    description?: string,
    keyOf: (wire: string) => string = (k) => k,
  ): string {
    const fields = Object.entries(properties).map(([wire, prop]) => {
      const key = keyOf(wire);
      const type = this.annotation(prop, `${hint}${pascal(wire)}`);
      const wrapped = required.includes(wire) ? type : `NotRequired[${type}]`;
      const about = prop?.description ?? prop?.anyOf?.find((v: Schema) => v?.description)?.description;
      return { key, wrapped, about: typeof about === 'string' ? about : undefined };
    });
    const shape = JSON.stringify(fields.map((f) => [f.key, f.wrapped]));
    const known = this.shapes.get(shape);
    if (known) return known;
    const name = this.uniqueName(hint);
    this.shapes.set(shape, name);
    const lines: string[] = [];
    if (fields.every((f) => isIdentifier(f.key))) {
      lines.push(`class ${name}(TypedDict):`);
      if (description) lines.push(...wrapComment(description, '    # '));
      for (const f of fields) {
        if (f.about) lines.push(...wrapComment(f.about, '    #: '));
        lines.push(`    ${f.key}: ${f.wrapped}`);
      }
    } else {
      // Keys that are not identifiers (or are keywords) need the functional form.
      if (description) lines.push(...wrapComment(description, '# '));
      lines.push(`${name} = TypedDict(`);
      lines.push(`    ${pyString(name)},`);
      lines.push('    {');
      for (const f of fields) lines.push(`        ${pyString(f.key)}: ${f.wrapped},`);
      lines.push('    },');
      lines.push(')');
    }
    this.blocks.push(lines.join('\n'));
    return name;
  }

  /** A named alias (`Name = annotation`), unless the annotation already is that name. */
  alias(name: string, annotation: string) {
    if (annotation === name) return;
    if (this.used.has(name)) throw new Error(`types.py: ${name} would be defined twice`);
    this.used.add(name);
    this.blocks.push(`${name} = ${annotation}`);
  }

  component(name: string) {
    this.used.add(name);
    const schema = this.components[name];
    if (schema?.type === 'object' && schema.properties) {
      this.used.delete(name);
      this.alias(name, this.typedDict(name, schema.properties, schema.required ?? [], schema.description));
    } else this.alias(name, this.annotation(schema, name));
  }
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  if (unique.includes('Any')) return 'Any';
  const withoutNone = unique.filter((m) => m !== 'None');
  return [...withoutNone, ...(unique.includes('None') ? ['None'] : [])].join(' | ');
}

interface PyOperation {
  name: string;
  method: string;
  path: string;
  /** Where keyword arguments go. */
  into: 'query' | 'json';
  /** Python keyword → wire name, where they differ. */
  renamed: Record<string, string>;
  paramsType: string | null;
  responseType: string;
  jobKinds: string[];
  paged: boolean;
}

const jsonSchemaOf = (content?: Record<string, { schema?: Schema }>) => content?.['application/json']?.schema;

/** Every operation our SDK reaches, with its generated types written into `types`. */
function operations(doc: PythonDocument, types: TypeWriter): PyOperation[] {
  const out: PyOperation[] = [];
  for (const { path: opPath, method, op } of sdkOperations(doc)) {
    const name = op.operationId;
    if (!name) throw new Error(`${method} ${opPath}: no operationId`);
    const base = pascal(name);
    const body = jsonSchemaOf(op.requestBody?.content);
    const into = body ? 'json' : 'query';
    let properties: Record<string, Schema> = {};
    let required: string[] = [];
    if (body) {
      properties = body.properties ?? {};
      required = body.required ?? [];
    } else {
      for (const p of op.parameters ?? []) {
        if (p.in !== 'query') continue;
        properties[p.name] = { ...p.schema, ...(p.description && { description: p.description }) };
        if (p.required) required.push(p.name);
      }
    }
    // Two spellings of one argument (packageId and package_id): Python gets one, the API's own
    // snake_case one where there is one.
    const seen = new Map<string, string>();
    for (const wire of Object.keys(properties)) {
      const py = snakeName(wire);
      const other = seen.get(py);
      if (other === undefined || wire === py) seen.set(py, wire);
    }
    const kept = new Set(seen.values());
    properties = Object.fromEntries(Object.entries(properties).filter(([wire]) => kept.has(wire)));
    required = required.map((wire) => seen.get(snakeName(wire)) ?? wire);
    const renamed: Record<string, string> = {};
    for (const [py, wire] of seen) if (py !== wire) renamed[py] = wire;
    let paramsType: string | null = null;
    if (Object.keys(properties).length > 0) {
      paramsType = `${base}Params`;
      types.alias(paramsType, types.typedDict(paramsType, properties, required, undefined, snakeName));
    }
    const responseType = `${base}Response`;
    const answers: string[] = [];
    for (const [status, res] of Object.entries(op.responses ?? {})) {
      if (!status.startsWith('2')) continue;
      const content = res.content ?? {};
      const json = jsonSchemaOf(content);
      // The first success answer's shape takes the operation's name; others add their status.
      const hint = answers.length === 0 ? responseType : `${responseType}${status}`;
      if (json) answers.push(json.type === 'string' ? 'str' : types.annotation(json, hint));
      else if (Object.keys(content).length > 0) answers.push('bytes');
    }
    types.alias(responseType, answers.length ? union(answers) : 'None');
    out.push({
      name,
      method,
      path: opPath,
      into,
      renamed,
      paramsType,
      responseType,
      jobKinds: op['x-job-kinds'] ?? [],
      paged: op['x-paged'] === true,
    });
  }
  return out;
}

const GENERATED = (what: string) =>
  `# GENERATED by scripts/sdk-python.ts ${what} (\`npm run sdk:python\`): do not edit.\n`;

function typesSource(doc: PythonDocument): { types: string; ops: PyOperation[] } {
  const components = doc.components?.schemas ?? {};
  const writer = new TypeWriter(components);
  for (const name of Object.keys(components)) if (name !== 'FirecrawlError') writer.component(name);
  const ops = operations(doc, writer);
  const kinds = [...new Set(ops.flatMap((o) => o.jobKinds))];
  const types = `${GENERATED("from the server's /openapi.json")}"""Types of the API's arguments and answers.

\`\`<Operation>Params\`\` are an operation's keyword arguments (snake_case); \`\`<Operation>Response\`\` is its
answer: the API's JSON as a dict, keys as the API writes them.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


${writer.blocks.join('\n\n\n')}


#: Job kinds that have a poll route of their own (see \`\`Jobs.wait\`\`).
PolledJobKind = Literal[${kinds.map(pyLiteral).join(', ')}]
`;
  return { types, ops };
}

function routesSource(ops: PyOperation[]): string {
  const routeLines = ops.map((o) => {
    const renamed = Object.entries(o.renamed)
      .map(([py, wire]) => `${pyString(py)}: ${pyString(wire)}`)
      .join(', ');
    return `    ${pyString(o.name)}: Route(${pyString(o.method)}, ${pyString(o.path)}, ${pyString(o.into)}, {${renamed}}),`;
  });
  const poll = ops.flatMap((o) => o.jobKinds.map((k) => `    ${pyString(k)}: ${pyString(o.name)},`));
  const paged = ops.filter((o) => o.paged).flatMap((o) => o.jobKinds.map(pyString));
  return `${GENERATED("from the server's /openapi.json")}"""Every operation the clients call, by its name (the operation's \`\`operationId\`\`).

Client methods reach the API only through these names; a test checks that this file is what the
script writes from the server now, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Literal, NamedTuple


class Route(NamedTuple):
    method: str
    #: As /openapi.json writes it: {name} for path parameters.
    path: str
    #: Where keyword arguments go: the query string or the JSON body.
    into: Literal["query", "json"]
    #: Python keyword argument -> the API's name, where they differ.
    renamed: dict[str, str]


ROUTES: dict[str, Route] = {
${routeLines.join('\n')}
}

#: Where each job kind is polled; a kind not listed here is polled at getJob.
POLL_ROUTE_OF_KIND: dict[str, str] = {
${poll.join('\n')}
}

#: Kinds whose poll answer is a slice of results from \`\`skip\`\`, with \`\`next\`\` while more remain.
PAGED_KINDS: frozenset[str] = frozenset({${paged.join(', ')}})
`;
}

/** The blocking client from the async one: the same code without async and await. */
export function syncClientSource(asyncSource: string): string {
  const rules: [RegExp, string][] = [
    [/\basync def\b/g, 'def'],
    [/\basync for\b/g, 'for'],
    [/\basync with\b/g, 'with'],
    [/\bawait /g, ''],
    [/\b__aenter__\b/g, '__enter__'],
    [/\b__aexit__\b/g, '__exit__'],
    [/\baclose\b/g, 'close'],
    [/\bfrom asyncio import sleep\b/g, 'from time import sleep'],
    [/\bAsyncIterator\b/g, 'Iterator'],
    [/\bAsync([A-Z]\w*)/g, '$1'],
    [/\basynchronous\b/g, 'blocking'],
  ];
  let out = asyncSource;
  for (const [pattern, replacement] of rules) out = out.replace(pattern, replacement);
  return `${GENERATED(`from ${ASYNC_CLIENT}`)}${out}`;
}

function versionSource(version: string): string {
  return `${GENERATED('from package.json')}"""The SDK's version: the server's, so a wheel says which server it was made for."""

__version__ = ${pyString(version)}
`;
}

/** Every generated file's text, by its name in PYTHON_PACKAGE. Pure. */
export function pythonSources(
  doc: PythonDocument,
  asyncSource: string,
  version: string,
): Record<(typeof PYTHON_GENERATED)[number], string> {
  const { types, ops } = typesSource(doc);
  return {
    '_routes.py': routesSource(ops),
    'types.py': types,
    '_version.py': versionSource(version),
    '_client.py': syncClientSource(asyncSource),
  };
}

export async function currentPythonSources(root: string) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const asyncSource = fs.readFileSync(path.join(root, PYTHON_PACKAGE, ASYNC_CLIENT), 'utf8');
  return pythonSources(await servedDocument(), asyncSource, pkg.version);
}

async function main(argv: string[]): Promise<number> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const sources = await currentPythonSources(root);
  let stale = 0;
  for (const [name, source] of Object.entries(sources)) {
    const file = path.join(root, PYTHON_PACKAGE, name);
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (current === source) continue;
    stale++;
    if (argv.includes('--check')) console.error(`${PYTHON_PACKAGE}/${name} is stale: run \`npm run sdk:python\``);
    else {
      fs.writeFileSync(file, source);
      console.log(`${PYTHON_PACKAGE}/${name}: written`);
    }
  }
  if (stale === 0) console.log(`${PYTHON_PACKAGE}: generated files unchanged`);
  return argv.includes('--check') && stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
