// A query of the hot paths built and compiled once per database, then run with new values. Kysely
// builds and compiles every query anew (immutable nodes, a visitor walk, frozen objects): for a read
// by primary key that costs more CPU than SQLite's own work. The query runs through Kysely's executor
// (its connection lock, transactions), except a select outside a transaction on embedded SQLite,
// which its reads connection answers at once (sqlite-reads.ts).
import { type Compilable, CompiledQuery, SelectQueryNode } from 'kysely';
import type { Db, Tx } from './db.js';
import { readsOf } from './sqlite-reads.js';

interface Compiled {
  sql: string;
  /** The compiled query's parameters, with the arguments' places marked. */
  parameters: readonly unknown[];
  /** For each parameter: which argument goes there, or -1 for a constant of the query. */
  argumentAt: readonly number[];
  /** A select: outside a transaction, embedded SQLite runs it on its reads connection (sqlite-reads.ts). */
  select: boolean;
}

const marker = (i: number) => `\u0000prepared-argument-${i}\u0000`;

export class PreparedQuery<Row, Args extends readonly unknown[]> {
  /** Keyed by the dialect's adapter: the SQL differs by dialect only, and transactions share it. */
  private readonly compiled = new WeakMap<object, Compiled>();

  /**
   * `build` receives one placeholder per argument and must use each as a value (never in SQL text);
   * placeholders are strings whatever the arguments' types, since only the compiled form is kept.
   */
  constructor(
    private readonly arity: Args['length'],
    private readonly build: (db: Db | Tx, ...placeholders: string[]) => Compilable<Row>,
  ) {}

  /** Runs on `db`, or inside a transaction: a transaction compiles on the database it belongs to. */
  async execute(db: Db | Tx, ...args: Args): Promise<Row[]> {
    if (args.length !== this.arity) {
      throw new Error(`prepared query: ${args.length} arguments given, ${this.arity} expected`);
    }
    const c = this.compiled.get(db.getExecutor().adapter) ?? this.compile(db);
    const parameters = c.argumentAt.map((a, i) => (a < 0 ? c.parameters[i] : args[a]));
    const reads = c.select ? readsOf(db) : undefined;
    if (reads) return reads.all<Row>(c.sql, parameters);
    return (await db.executeQuery<Row>(CompiledQuery.raw(c.sql, parameters))).rows;
  }

  async executeTakeFirst(db: Db | Tx, ...args: Args): Promise<Row | undefined> {
    return (await this.execute(db, ...args))[0];
  }

  private compile(db: Db | Tx): Compiled {
    const markers = Array.from({ length: this.arity }, (_, i) => marker(i));
    const query = this.build(db, ...markers).compile();
    const argumentAt = query.parameters.map((p) => (typeof p === 'string' ? markers.indexOf(p) : -1));
    for (let i = 0; i < markers.length; i++) {
      if (!argumentAt.includes(i)) throw new Error(`prepared query: argument ${i} is not a parameter`);
    }
    if (markers.some((m) => query.sql.includes(m))) {
      throw new Error('prepared query: an argument was written into the SQL text');
    }
    const compiled = {
      sql: query.sql,
      parameters: query.parameters,
      argumentAt,
      select: SelectQueryNode.is(query.query),
    };
    this.compiled.set(db.getExecutor().adapter, compiled);
    return compiled;
  }
}
