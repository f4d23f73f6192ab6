// Waiting on a platform or provider: how long its Retry-After asks for, and a pause that ends (with
// the signal's reason) as soon as the caller gives up.

/** A Retry-After header (seconds or an HTTP date) in milliseconds; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (!raw) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) return Math.round(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Waits `ms`; rejects with the signal's reason when it aborts first (or already has). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
