// The layers of src/, checked on its import graph (every `import`/`export … from`/`import()` of a
// relative path, type-only ones included): no import circles; no upward edges (store/ and net/ know no
// service, sources/ and media/ know nothing of http/, http/ does not reach into store/); and the
// environment is read only by config.ts and the process entry points in main/; route input is typed
// from its schema, never cast. A new file is checked as soon as it exists.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/processes.js';

const SRC = path.join(repoRoot, 'src');

/** Every .ts file under src/, as a path relative to src/ (e.g. `http/app.ts`). */
function sourceFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full)] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The src/ files `file` imports (relative specifiers resolved; packages and node: ignored). */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]!;
    if (!spec.startsWith('.')) continue;
    const target = path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts');
    out.push(target);
  }
  return out;
}

/** Strips comments, so that an import or process.env named in prose does not count. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

const files = sourceFiles();
const texts = new Map(files.map((f) => [f, code(fs.readFileSync(path.join(SRC, f), 'utf8'))]));
const graph = new Map(files.map((f) => [f, importsOf(f, texts.get(f)!)]));

/** The import circles: strongly connected components of more than one file (or a file importing itself). */
function circles(): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const f of files) if (!indexOf.has(f)) visit(f);
  return found;
}

/** Everything above the store and the outbound layer: what neither of them may import. */
const SERVICE_LAYERS = [
  'http/',
  'services.ts',
  'capabilities.ts',
  'jobs/',
  'billing/',
  'accounts/',
  'sources/',
  'media/',
  'monitors/',
  'main/',
];

/** Layer rules: files under `from` may not import files under any of `not`. */
const RULES: Array<{ from: string; not: string[]; why: string }> = [
  { from: 'store/', not: [...SERVICE_LAYERS, 'net/'], why: 'the store knows no service' },
  { from: 'net/', not: [...SERVICE_LAYERS, 'store/'], why: 'the outbound layer knows no service' },
  { from: 'sources/', not: ['http/', 'main/', 'services.ts'], why: 'platforms know nothing of HTTP routes' },
  { from: 'media/', not: ['http/', 'main/', 'services.ts'], why: 'media work knows nothing of HTTP routes' },
  {
    from: 'monitors/',
    not: ['http/', 'main/', 'services.ts', 'capabilities.ts'],
    why: 'monitors know nothing of HTTP routes or of how a process is put together',
  },
  {
    from: 'jobs/',
    not: ['monitors/', 'sources/', 'media/'],
    why: 'the job engine names no kind: kinds register themselves (capabilities.ts)',
  },
  {
    from: 'http/',
    not: ['store/', 'main/', 'services.ts'],
    why: 'routes reach data through the narrow HttpContext (http/context.ts), never the store or the whole of the services',
  },
  {
    from: 'mcp/',
    not: [...SERVICE_LAYERS, 'store/', 'net/'],
    why: 'MCP tools reach Unfurl only through its HTTP API',
  },
  { from: '', not: ['main/'], why: 'only entry points live in main/' },
];

describe('the layers of src/', () => {
  it('reads a real import graph', () => {
    expect(files.length).toBeGreaterThan(150);
    expect(graph.get('http/app.ts')).toContain('http/plugins/auth.ts');
    // A type-only import counts as an edge.
    expect(graph.get('jobs/types.ts')).toContain('store/schema.ts');
  });

  it('has no import circles', () => {
    expect(circles()).toEqual([]);
  });

  it('has no upward imports', () => {
    const broken: string[] = [];
    for (const [file, targets] of graph) {
      for (const rule of RULES) {
        if (!file.startsWith(rule.from) || (rule.from === '' && file.startsWith('main/'))) continue;
        for (const target of targets) {
          if (rule.not.some((n) => target.startsWith(n) && !target.startsWith(rule.from || '\u0000'))) {
            broken.push(`${file} → ${target} (${rule.why})`);
          }
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("types route input from its schema: no cast of a request's query, body, params or headers in http/", () => {
    const casts = files.filter(
      (f) => f.startsWith('http/') && /\brequest\.(query|body|params|headers)\s+as\b/.test(texts.get(f)!),
    );
    expect(casts).toEqual([]);
  });

  it('keeps the database, Redis, Stripe and the queue out of http/: no import of their packages', () => {
    const backends = /^(kysely|ioredis|stripe|bullmq|better-sqlite3|pg)(\/|$)/;
    const broken: string[] = [];
    for (const f of files.filter((f) => f.startsWith('http/'))) {
      for (const m of texts.get(f)!.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2] ?? m[3]!;
        if (backends.test(spec)) broken.push(`${f} → ${spec}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reads the environment only in config.ts and the entry points of main/', () => {
    const readers = files.filter(
      (f) => /\bprocess\.env\b/.test(texts.get(f)!) && f !== 'config.ts' && !f.startsWith('main/'),
    );
    expect(readers).toEqual([]);
  });
});
