// Graceful shutdown on SIGTERM/SIGINT, with a hard stop if it takes too long.
export function onShutdownSignal(
  log: { info(o: object, m: string): void; error(o: object, m: string): void },
  close: () => Promise<void>,
) {
  let closing = false;
  const handler = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    // A shutdown that failed (e.g. jobs not drained, database not closed) must not look clean.
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
  // A member of a process group whose supervisor is gone (killed) must not serve on, orphaned.
  if (process.send) process.on('disconnect', () => handler('disconnect'));
}
