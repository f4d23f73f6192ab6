// SQLite's WAL checkpoints on a worker thread. A checkpoint copies the pages committed to the WAL
// back into the database file and syncs both; SQLite runs it inside whichever commit crosses
// `wal_autocheckpoint` pages, so on the event loop, where every request waits out its copying and
// its fsyncs. Here a worker thread with its own connection checkpoints what it can every
// CHECKPOINT_EVERY_MS without blocking anyone (PASSIVE). The main connection keeps a far higher
// automatic threshold as a backstop: under writes that never pause, a passive checkpoint can never
// catch the last frames, the WAL would never start over and it would grow without end; the backstop
// finishes the little that is left and lets the WAL wrap. If the worker stops, the main connection
// goes back to SQLite's own threshold.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

export const CHECKPOINT_EVERY_MS = 100;
/** SQLite's default automatic threshold, in pages, back in force when the worker stops. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;
/** The backstop while the worker runs: about 16 MB of WAL with 4 KB pages. */
export const BACKSTOP_AUTOCHECKPOINT = 4000;

// The worker's script. It is plain JavaScript run with `eval` so that it is the same under the
// compiled build and the test runner; it opens the driver the app itself resolved.
const WORKER_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
/** Checkpoints what it can; answers how long to wait before the next round. */
const checkpoint = () => {
  try {
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    // A WAL at the backstop has not wrapped: the writer's own checkpoint must get the lock to let
    // it, so this side keeps off for a while.
    return log >= workerData.backstopPages ? workerData.everyMs * 5 : workerData.everyMs;
  } catch (err) {
    // Busy means another connection holds the checkpoint (or is recovering the WAL): next round.
    if (err.code !== 'SQLITE_BUSY' && err.code !== 'SQLITE_LOCKED') throw err;
    return workerData.everyMs;
  }
};
let timer;
const round = () => {
  timer = setTimeout(round, checkpoint());
};
timer = setTimeout(round, workerData.everyMs);
// No last checkpoint here: the serving connection, closed next, is the last one and checkpoints then.
parentPort.on('message', () => {
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

const driverPath = () => createRequire(import.meta.url).resolve('better-sqlite3');

export class BackgroundCheckpoints {
  readonly worker: Worker;
  private readonly exited: Promise<void>;

  /** Starts checkpointing `file`, the database `main` is connected to (in WAL mode). */
  constructor(file: string, main: SQLite.Database, everyMs = CHECKPOINT_EVERY_MS) {
    main.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT}`);
    this.worker = new Worker(WORKER_SCRIPT, {
      eval: true,
      workerData: { driver: driverPath(), file, everyMs, backstopPages: BACKSTOP_AUTOCHECKPOINT },
    });
    // A store nobody closed must not keep the process alive for its checkpoints.
    this.worker.unref();
    this.exited = new Promise((resolve) => {
      const fallBack = () => {
        if (main.open) main.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
        resolve();
      };
      this.worker.once('exit', fallBack);
      // The worker's own failure: the main connection checkpoints as SQLite would by itself.
      this.worker.once('error', (err) => {
        process.emitWarning(`SQLite checkpoint worker failed, checkpoints are back inline: ${err.message}`);
        fallBack();
      });
    });
  }

  /** Lets the worker end (a worker that does not is terminated); close the main connection after. */
  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    const timer = setTimeout(() => void this.worker.terminate(), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}
