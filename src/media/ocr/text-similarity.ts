// Comparing OCR'd text: the same caption read on two frames rarely comes out byte-identical, so
// lines are compared by a normalised edit distance.

/** Unicode NFKC, whitespace collapsed, trimmed. */
export function normaliseText(text: string): string {
  return text.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** Levenshtein distance over code points (two rows, O(n·m) time, O(m) memory). */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  let cur = new Array<number>(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length]!;
}

/** 1 for equal strings, 0 for nothing in common: 1 − distance / longer length (case-insensitive). */
export function similarity(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const longest = Math.max([...x].length, [...y].length);
  return longest === 0 ? 1 : 1 - editDistance(x, y) / longest;
}

/** Character error rate of `hypothesis` against `reference` (edit distance / reference length). */
export function characterErrorRate(reference: string, hypothesis: string): number {
  const ref = [...normaliseText(reference)];
  return ref.length === 0
    ? hypothesis.length > 0
      ? 1
      : 0
    : editDistance(ref.join(''), normaliseText(hypothesis)) / ref.length;
}
