// "Did you mean": the known word nearest to a mistyped one, when it is near enough to be the intent.

/** Edits (insert, delete, substitute, swap two neighbours) between two short words. Pure. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `word` (a third of its length in edits at most, at least one), or null. */
export function closest(word: string, candidates: readonly string[]): string | null {
  const budget = Math.max(1, Math.floor(word.length / 3));
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A prefix typed short (`--lim`) is also what was meant.
  const prefixed = candidates.filter((c) => c.startsWith(word));
  if (bestDistance > budget && prefixed.length === 1) return prefixed[0]!;
  return bestDistance <= budget ? best : null;
}
