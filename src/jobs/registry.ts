// The job kinds this process knows. Capabilities register their kinds here; nothing else is needed.
import type { PriceRow } from '../billing/prices.js';
import type { JobKind } from './types.js';

export class JobRegistry {
  private readonly kinds = new Map<string, JobKind>();

  register<I, R>(kind: JobKind<I, R>): void {
    if (this.kinds.has(kind.kind)) throw new Error(`job kind ${kind.kind} registered twice`);
    const row = kind.price;
    const sharing = row && this.all().find((k) => k.price?.operation === row.operation);
    if (row && sharing && sharing.price?.price !== row.price) {
      throw new Error(`job kinds ${sharing.kind} and ${kind.kind} price "${row.operation}" differently`);
    }
    this.kinds.set(kind.kind, kind as unknown as JobKind);
  }

  get(kind: string): JobKind | undefined {
    return this.kinds.get(kind);
  }

  require(kind: string): JobKind {
    const k = this.kinds.get(kind);
    if (!k) throw new Error(`no handler registered for job kind ${kind}`);
    return k;
  }

  /** Jobs of a kind one process runs at once (the kind's own, else 4). */
  concurrencyOf(kind: string): number {
    return this.kinds.get(kind)?.concurrency ?? 4;
  }

  all(): JobKind[] {
    return [...this.kinds.values()];
  }

  /** Its kinds' rows of the price table, in the order they registered; a row kinds share, once. */
  prices(): PriceRow[] {
    const rows = new Map<string, PriceRow>();
    for (const { price } of this.kinds.values()) {
      if (price && !rows.has(price.operation)) rows.set(price.operation, price);
    }
    return [...rows.values()];
  }
}
