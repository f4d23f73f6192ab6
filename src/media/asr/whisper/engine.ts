// whisper.cpp run by supervised child processes (child.ts): each loads the model once, stays warm
// for the next job until it has idled `idleMs`, and recognises one file at a time with `threads`
// threads. Up to `processes` run side by side; further jobs wait for one. A process that overruns
// its time-out, whose job is cancelled, or that crashes is killed and the next job starts a fresh
// one — the API's event loop never runs whisper.cpp itself.
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from '../../../config.js';
import { AppError, permanent } from '../../../errors.js';
import type { FromChild, WhisperSegment } from './protocol.js';

export interface WhisperEngineOptions {
  modelPath: string;
  threads: number;
  processes: number;
  idleMs: number;
}

export interface WhisperRun {
  /** Raw 32-bit float PCM, 16 kHz mono. */
  pcmFile: string;
  /** A whisper language code; null: the model detects it. */
  language: string | null;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface WhisperAnswer {
  segments: WhisperSegment[];
  /** The language decoded in (a whisper code such as "en"); null when not known. */
  language: string | null;
}

const HERE = fileURLToPath(import.meta.url);
const EXT = path.extname(HERE);
/** The child next to this file: compiled .js in production, .ts under tsx (tests, bench). */
const CHILD = path.join(path.dirname(HERE), `child${EXT}`);
const CHILD_EXEC_ARGV = EXT === '.ts' ? ['--import', 'tsx'] : [];
const STDERR_TAIL = 2000;

const modelError = (detail: string) =>
  permanent(`The speech recognition model could not be loaded (${detail})`, 'internal_error');

/** One child process and its model. */
class WhisperProcess {
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  busy = false;
  dead = false;
  idleTimer: NodeJS.Timeout | null = null;
  private readonly child: ChildProcess;
  private stderr = '';
  private nextId = 1;
  private pending: { id: number; resolve(a: WhisperAnswer): void; reject(e: Error): void } | null = null;

  constructor(
    modelPath: string,
    private readonly onExit: (p: WhisperProcess) => void,
  ) {
    const child: ChildProcess = fork(CHILD, [modelPath], {
      execArgv: CHILD_EXEC_ARGV,
      env: childEnv(),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child = child;
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (message: FromChild) => {
        if (message.type === 'ready') resolve();
        else if (message.type === 'load_failed') reject(modelError(message.message));
        else this.answer(message);
      });
      child.on('exit', (code, signal) => {
        this.dead = true;
        if (this.idleTimer) clearTimeout(this.idleTimer);
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        reject(modelError(`the process ended with ${how}${this.tail()}`));
        this.pending?.reject(
          new AppError('internal_error', `speech recognition crashed (${how})${this.tail()}`, null, {
            retryable: true,
          }),
        );
        this.pending = null;
        this.onExit(this);
      });
    });
    // A failure to load is reported to the job that waits; nobody else needs to hear of it.
    this.ready.catch(() => {});
  }

  private tail(): string {
    const last = this.stderr.trim().split('\n').slice(-3).join(' | ');
    return last ? `: ${last}` : '';
  }

  private answer(message: Extract<FromChild, { id: number }>): void {
    const pending = this.pending;
    if (!pending || pending.id !== message.id) return;
    this.pending = null;
    if (message.type === 'done') pending.resolve({ segments: message.segments, language: message.language });
    else pending.reject(permanent(`speech recognition failed: ${message.message}`, 'internal_error'));
  }

  /** One recognition; the process is killed when it overruns `timeoutMs` or the job is cancelled. */
  async run(run: WhisperRun, threads: number): Promise<WhisperAnswer> {
    await this.ready;
    run.signal.throwIfAborted();
    if (this.dead) {
      throw new AppError('internal_error', `speech recognition process ended${this.tail()}`, null, {
        retryable: true,
      });
    }
    const id = this.nextId++;
    return new Promise<WhisperAnswer>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        run.signal.removeEventListener('abort', onAbort);
      };
      const timer = setTimeout(() => {
        this.kill();
        reject(
          permanent(
            `speech recognition took longer than ${Math.round(run.timeoutMs / 1000)} s for one part`,
            'internal_error',
          ),
        );
      }, run.timeoutMs);
      const onAbort = () => {
        this.kill();
        reject(run.signal.reason);
      };
      run.signal.addEventListener('abort', onAbort, { once: true });
      this.pending = {
        id,
        resolve: (a) => {
          done();
          resolve(a);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      this.child.send({ type: 'run', id, pcmFile: run.pcmFile, language: run.language, threads });
    });
  }

  /** Ends the process now (whisper.cpp cannot be interrupted mid-run). */
  kill(): void {
    this.pending = null;
    if (!this.dead) this.child.kill('SIGKILL');
  }

  /** Ends an idle process politely: it exits when its IPC channel closes. */
  stop(): void {
    if (this.child.connected) this.child.disconnect();
    else this.kill();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }
}

export class WhisperEngine {
  private readonly live = new Set<WhisperProcess>();
  private readonly waiting: Array<() => void> = [];
  private closed = false;
  /** Processes started since the engine was made (a warm engine does not start more). */
  started = 0;

  constructor(private readonly opts: WhisperEngineOptions) {}

  async recognise(run: WhisperRun): Promise<WhisperAnswer> {
    const proc = await this.acquire(run.signal);
    try {
      return await proc.run(run, this.opts.threads);
    } finally {
      this.release(proc);
    }
  }

  /** Process ids of the live processes (busy or warm). */
  pids(): number[] {
    return [...this.live].flatMap((p) => (p.pid === undefined ? [] : [p.pid]));
  }

  async close(): Promise<void> {
    this.closed = true;
    const exits = [...this.live].map((p) => p.exited);
    for (const p of this.live) p.kill();
    this.live.clear();
    await Promise.all(exits);
  }

  private async acquire(signal: AbortSignal): Promise<WhisperProcess> {
    for (;;) {
      signal.throwIfAborted();
      if (this.closed) throw new AppError('service_unavailable', 'speech recognition is shutting down');
      const idle = [...this.live].find((p) => !p.busy && !p.dead);
      if (idle) return this.take(idle);
      if (this.live.size < this.opts.processes) {
        this.started++;
        const proc = new WhisperProcess(this.opts.modelPath, (p) => this.gone(p));
        this.live.add(proc);
        return this.take(proc);
      }
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          this.waiting.splice(this.waiting.indexOf(wake), 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(wake);
      });
    }
  }

  private take(proc: WhisperProcess): WhisperProcess {
    proc.busy = true;
    if (proc.idleTimer) clearTimeout(proc.idleTimer);
    proc.idleTimer = null;
    return proc;
  }

  private release(proc: WhisperProcess): void {
    proc.busy = false;
    if (!proc.dead && !this.closed) {
      proc.idleTimer = setTimeout(() => {
        this.live.delete(proc);
        proc.stop();
      }, this.opts.idleMs);
      proc.idleTimer.unref();
    }
    this.waiting.shift()?.();
  }

  private gone(proc: WhisperProcess): void {
    this.live.delete(proc);
    this.waiting.shift()?.();
  }
}
