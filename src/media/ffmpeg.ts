// Runs ffmpeg and ffprobe: the system binaries when installed (UNFURL_FFMPEG_PATH / UNFURL_FFPROBE_PATH
// override), bounded in time, cancelled with the job's signal, stderr kept (tail) for error messages.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { childEnv, toolPaths } from '../config.js';
import { AppError } from '../errors.js';
import { mediaInput, refusedFormat } from './input.js';

export interface RunOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Collect stdout (frames piped out, ffprobe JSON) up to this many bytes (default 0: discarded). */
  maxStdoutBytes?: number;
  /** Extra environment variables for the tool (e.g. OMP_THREAD_LIMIT for tesseract). */
  env?: Record<string, string>;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
}

const STDERR_TAIL = 4000;

export const ffmpegPath = () => toolPaths().ffmpeg;
export const ffprobePath = () => toolPaths().ffprobe;

/** A spawned tool under watch: killed on timeout or abort, stderr tail kept, its ending judged. */
interface Supervised {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Kills the tool; the first reason given is the one reported. */
  stop(err: Error): void;
  /** Resolves when the tool has exited (its exit code; null when it never started). */
  closed: Promise<number | null>;
  /** The error the run ended with, if any: a stop reason, or a non-zero exit. */
  verdict(code: number | null): Error | null;
  /** Stops watching (timer and abort listener). */
  release(): void;
  stderr(): string;
}

function supervise(
  binary: string,
  args: readonly string[],
  options: { timeoutMs: number; signal?: AbortSignal; env?: Record<string, string> },
): Supervised {
  const { timeoutMs, signal } = options;
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(options.env) });
  let stderr = '';
  let failure: Error | null = null;
  const stop = (err: Error) => {
    failure ??= err;
    child.kill('SIGKILL');
  };
  const timer = setTimeout(
    () => stop(new AppError('internal_error', `${binary} took longer than ${timeoutMs} ms`)),
    timeoutMs,
  );
  const onAbort = () => stop(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const closed = new Promise<number | null>((resolve) => {
    child.on('error', (err: NodeJS.ErrnoException) => {
      stop(err.code === 'ENOENT' ? new AppError('internal_error', notInstalled(binary)) : err);
      resolve(null);
    });
    child.on('close', (code) => resolve(code));
    // A killed tool's own children may hold its pipes open: once we stopped it, its exit is enough.
    child.on('exit', (code) => {
      if (failure) resolve(code);
    });
  });
  return {
    child,
    stop,
    closed,
    verdict(code) {
      if (failure) return failure;
      if (code === 0) return null;
      const last = stderr.trim().split('\n').slice(-3).join(' | ');
      return new MediaToolError(`${binary} exited with ${code}: ${last}`, stderr);
    },
    release() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
    stderr: () => stderr,
  };
}

/** Runs a media tool to its end; a non-zero exit, a timeout or an abort rejects with a clear message. */
export async function runTool(
  binary: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const { timeoutMs = 10 * 60_000, signal, maxStdoutBytes = 0 } = options;
  if (signal?.aborted) throw signal.reason;
  const run = supervise(binary, args, { timeoutMs, signal, env: options.env });
  const out: Buffer[] = [];
  let outBytes = 0;
  run.child.stdout.on('data', (chunk: Buffer) => {
    if (maxStdoutBytes <= 0) return;
    outBytes += chunk.length;
    if (outBytes > maxStdoutBytes)
      run.stop(new AppError('payload_too_large', `${binary} wrote more than ${maxStdoutBytes} bytes`));
    else out.push(chunk);
  });
  const code = await run.closed;
  run.release();
  const err = run.verdict(code);
  if (err) throw err;
  return { stdout: Buffer.concat(out), stderr: run.stderr() };
}

function notInstalled(binary: string): string {
  const pkg = binary.includes('tesseract') ? 'tesseract-ocr tesseract-ocr-eng' : 'ffmpeg';
  return `${binary} is not installed (apt-get install ${pkg})`;
}

/** The tool ran and refused the input (not a media file, no such stream, …). */
export class MediaToolError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface ProbeResult {
  /** Seconds (0 when the container does not say). */
  durationSec: number;
  hasVideo: boolean;
  hasAudio: boolean;
  width: number | null;
  height: number | null;
  /** Frames per second of the first video stream. */
  fps: number | null;
  /** Degrees the player turns the picture (phone videos); ffmpeg applies it when decoding. */
  rotation?: number;
}

interface ProbeJson {
  format?: { duration?: string };
  streams?: Array<{
    codec_type?: string;
    width?: number;
    height?: number;
    duration?: string;
    avg_frame_rate?: string;
    disposition?: { attached_pic?: number };
    tags?: { rotate?: string };
    side_data_list?: Array<{ rotation?: number }>;
  }>;
}

function rate(raw: string | undefined): number | null {
  if (!raw) return null;
  const [n, d] = raw.split('/').map(Number);
  if (!n || !Number.isFinite(n)) return null;
  return d ? n / d : n;
}

/** Parses `ffprobe -of json -show_format -show_streams`. Pure. */
export function parseProbe(json: ProbeJson): ProbeResult {
  const streams = json.streams ?? [];
  // Cover art in an audio file is a "video" stream of one picture: not a video.
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const durations = [json.format?.duration, ...streams.map((s) => s.duration)]
    .map((d) => Number(d))
    .filter((d) => Number.isFinite(d) && d > 0);
  return {
    durationSec: durations.length ? Math.max(...durations) : 0,
    hasVideo: Boolean(video),
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
    width: video?.width ?? null,
    height: video?.height ?? null,
    fps: rate(video?.avg_frame_rate),
    rotation: rotationOf(video),
  };
}

function rotationOf(video: NonNullable<ProbeJson['streams']>[number] | undefined): number {
  const raw =
    video?.side_data_list?.find((d) => typeof d.rotation === 'number')?.rotation ??
    Number(video?.tags?.rotate ?? 0);
  const deg = Number.isFinite(raw) ? Math.round(raw) : 0;
  return ((deg % 360) + 360) % 360;
}

/** Width and height of the decoded picture after ffmpeg's automatic rotation. */
export function displaySize(p: ProbeResult): { width: number; height: number } | null {
  if (!p.width || !p.height) return null;
  return p.rotation === 90 || p.rotation === 270
    ? { width: p.height, height: p.width }
    : { width: p.width, height: p.height };
}

/**
 * Duration and streams of a media file; a file ffprobe cannot read is a 400 naming `url`, and so is one
 * in a format not allowed (a playlist or list the download's early check did not recognise).
 */
export async function probe(file: string, options: RunOptions = {}): Promise<ProbeResult> {
  try {
    const { stdout } = await runTool(
      ffprobePath(),
      ['-v', 'error', '-of', 'json', '-show_format', '-show_streams', ...mediaInput(file)],
      { timeoutMs: 60_000, ...options, maxStdoutBytes: 4 * 1024 * 1024 },
    );
    return parseProbe(JSON.parse(stdout.toString('utf8')) as ProbeJson);
  } catch (err) {
    if (err instanceof MediaToolError && refusedFormat(err.stderr)) {
      throw new AppError(
        'invalid_request',
        "Invalid parameter 'url': it is not a single audio or video file (playlists, file lists and image sequences are refused)",
        'url',
      );
    }
    if (err instanceof MediaToolError) {
      throw new AppError('invalid_request', 'The URL does not point to a media file that can be read', 'url');
    }
    throw err;
  }
}

export interface StreamOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Runs a tool and yields its stdout as it comes (frames piped out); reading slowly pauses the tool
 * (the pipe fills), so memory stays bounded. Leaving the loop early kills the tool. A non-zero exit,
 * a timeout or an abort is thrown from the loop.
 */
export async function* streamTool(
  binary: string,
  args: readonly string[],
  options: StreamOptions = {},
): AsyncGenerator<Buffer> {
  const { timeoutMs = 10 * 60_000, signal } = options;
  if (signal?.aborted) throw signal.reason;
  const run = supervise(binary, args, { timeoutMs, signal });
  let finished = false;
  try {
    for await (const chunk of run.child.stdout) {
      if (run.verdict(0)) break;
      yield chunk as Buffer;
    }
    const code = await run.closed;
    finished = true;
    const err = run.verdict(code);
    if (err) throw err;
  } finally {
    run.release();
    if (!finished) {
      run.child.kill('SIGKILL');
      await run.closed;
    }
  }
}
