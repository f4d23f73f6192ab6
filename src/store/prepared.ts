// A query of the hot paths built and compiled once per database, then run with new values. Kysely
// builds and compiles every query anew (immutable nodes, a visitor walk, frozen objects): for a read
// by primary key that costs more CPU than SQLite's own work. The query runs through Kysely's executor
// (its connection lock, transactions), except a select outside a transaction on embedded SQLite,
// which its reads connection answers at once (sqlite-reads.ts).
//
// A query is typed by its parameters: `build` is written against a `Params` object, and every run
// passes one, checked by TypeScript. Building once, `build` receives a stand-in for that object:
// each value read from it, at any depth (`p.amount`, `p.entries[2]!.id`), is a parameter's place, so
// a build reads as the query it compiles and needs no casts.
import { type Compilable, CompiledQuery, SelectQueryNode } from 'kysely';
import type { Db, Tx } from './db.js';
import { readsOf } from './sqlite-reads.js';

interface Compiled {
  sql: string;
  /** The compiled query's parameters: the query's own constants, and stand-ins where values go. */
  parameters: readonly unknown[];
  /** For each parameter: where in `Params` its value is read, or null for a constant of the query. */
  paths: ReadonlyArray<readonly string[] | null>;
  /** A select: outside a transaction, embedded SQLite runs it on its reads connection (sqlite-reads.ts). */
  select: boolean;
}

/** What a stand-in turns into when written into text: found in the SQL, it refuses the query. */
const TEXT_MARKER = '\u0000prepared-parameter:';

/** The stand-ins handed out while one query is built, each with the path it was read at. */
class StandIns {
  readonly paths = new Map<object, readonly string[]>();

  /** A stand-in for the value at `path`: reading a property from it stands in for that value. */
  at(path: readonly string[]): object {
    const standIn: object = new Proxy(Object.create(null), {
      get: (_target, key) => {
        if (key === Symbol.toPrimitive) return () => `${TEXT_MARKER}${path.join('.')}\u0000`;
        return typeof key === 'string' ? this.at([...path, key]) : undefined;
      },
    });
    this.paths.set(standIn, path);
    return standIn;
  }
}

export class PreparedQuery<Params extends object, Row> {
  /** Keyed by the dialect's adapter: the SQL differs by dialect only, and transactions share it. */
  private readonly compiled = new WeakMap<object, Compiled>();

  /**
   * `build` receives a stand-in for the parameters: it must pass the values it reads from them on to
   * the query as values (never into SQL text, and never test or compute with them: they are not the
   * values yet). A parameter read twice is passed twice.
   */
  constructor(private readonly build: (db: Db | Tx, params: Params) => Compilable<Row>) {}

  /** Runs on `db`, or inside a transaction: a transaction compiles on the database it belongs to. */
  async execute(db: Db | Tx, params: Params): Promise<Row[]> {
    const c = this.compiled.get(db.getExecutor().adapter) ?? this.compile(db);
    const parameters = new Array<unknown>(c.paths.length);
    for (let i = 0; i < parameters.length; i++) {
      const path = c.paths[i];
      parameters[i] = path ? valueAt(params, path) : c.parameters[i];
    }
    const reads = c.select ? readsOf(db) : undefined;
    if (reads) return reads.all<Row>(c.sql, parameters);
    return (await db.executeQuery<Row>(CompiledQuery.raw(c.sql, parameters))).rows;
  }

  async executeTakeFirst(db: Db | Tx, params: Params): Promise<Row | undefined> {
    return (await this.execute(db, params))[0];
  }

  private compile(db: Db | Tx): Compiled {
    const standIns = new StandIns();
    // The stand-in answers every property read as `Params` would, with a stand-in of that value.
    const query = this.build(db, standIns.at([]) as Params).compile();
    const at = query.sql.indexOf(TEXT_MARKER);
    if (at >= 0) {
      const path = query.sql.slice(at + TEXT_MARKER.length).split('\u0000')[0];
      throw new Error(`prepared query: parameter ${path} was written into the SQL text`);
    }
    const compiled = {
      sql: query.sql,
      parameters: query.parameters,
      paths: query.parameters.map((p) =>
        typeof p === 'object' && p ? (standIns.paths.get(p) ?? null) : null,
      ),
      select: SelectQueryNode.is(query.query),
    };
    this.compiled.set(db.getExecutor().adapter, compiled);
    return compiled;
  }
}

/** The value at `path` in `params`; none there (undefined) is a caller's bug, not a NULL. */
function valueAt(params: object, path: readonly string[]): unknown {
  let value: unknown = params;
  for (const key of path) value = (value as Record<string, unknown>)[key];
  if (value === undefined) throw new Error(`prepared query: no value for parameter ${path.join('.')}`);
  return value;
}
