// A job's time budget for provider calls: a deadline every call and pause is measured against.
export interface Budget {
  /** Milliseconds left (≤ 0 once spent). */
  remainingMs(): number;
}

export function budget(totalMs: number, now: () => number = Date.now): Budget {
  const deadline = now() + totalMs;
  return { remainingMs: () => deadline - now() };
}
