// Test media made with ffmpeg lavfi: tones of known pitch at known times (silence between), as an
// MP3 or under a testsrc2 video, and a loopback server that serves the files by name (and redirects
// between them) — the `direct` platform's kind of URL. Under CI=true a missing ffmpeg or Tesseract
// fails the tests that need it.
import { execFile, execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Loopback, startServer } from '../../support/loopback.js';

const run = promisify(execFile);

export interface Tone {
  startSec: number;
  endSec: number;
  hz: number;
}

export function haveFfmpeg(): boolean {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true')
      throw new Error('ffmpeg/ffprobe are required (CI=true): apt-get install ffmpeg');
    return false;
  }
}

export function haveTesseract(): boolean {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true')
      throw new Error('tesseract is required (CI=true): apt-get install tesseract-ocr');
    return false;
  }
}

/** An aevalsrc expression: each tone as a sine between its times, silence elsewhere. */
function toneExpression(tones: readonly Tone[]): string {
  return tones.reduceRight(
    (rest, t) => `if(between(t\\,${t.startSec}\\,${t.endSec})\\,0.6*sin(2*PI*${t.hz}*t)\\,${rest})`,
    '0',
  );
}

/** Stereo 44.1 kHz MP3 (not what recognisers want: the pipeline must convert it). */
export async function toneMp3(file: string, durationSec: number, tones: readonly Tone[]): Promise<void> {
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `aevalsrc=${toneExpression(tones)}:s=44100:c=stereo:d=${durationSec}`,
    '-c:a',
    'libmp3lame',
    '-b:a',
    '128k',
    '-y',
    file,
  ]);
}

/** A testsrc2 video (cuts between coloured scenes) with the tones as its sound. */
export async function toneVideo(
  file: string,
  opts: { durationSec: number; tones: readonly Tone[]; width?: number; height?: number; audio?: boolean },
): Promise<void> {
  const size = `${opts.width ?? 1280}x${opts.height ?? 720}`;
  const third = opts.durationSec / 3;
  // Three scenes: the test pattern, then flat colours — the picture changes twice.
  const video =
    `testsrc2=s=${size}:d=${third}:r=25[a];color=c=red:s=${size}:d=${third}:r=25[b];` +
    `color=c=blue:s=${size}:d=${opts.durationSec - 2 * third}:r=25[c];[a][b][c]concat=n=3:v=1:a=0[v]`;
  const args = ['-v', 'error', '-filter_complex', video];
  if (opts.audio !== false) {
    args.push('-f', 'lavfi', '-i', `aevalsrc=${toneExpression(opts.tones)}:s=44100:d=${opts.durationSec}`);
    args.push('-map', '[v]', '-map', '0:a', '-c:a', 'aac');
  } else args.push('-map', '[v]');
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', file);
  await run('ffmpeg', args);
}

export interface MediaServer extends Loopback {
  dir: string;
  urlOf(name: string): string;
  /** Paths asked for, in order. */
  requests: string[];
  /** Names answered with a 302 to another name of this server (tests add to it). */
  redirects: Map<string, string>;
}

/** Serves the files of a fresh temp dir by name, with the content type their extension implies (else
 * application/octet-stream). */
export async function startMediaServer(): Promise<MediaServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ai-media-'));
  const requests: string[] = [];
  const redirects = new Map<string, string>();
  const types: Record<string, string> = { mp3: 'audio/mpeg', mp4: 'video/mp4' };
  const server = await startServer((req, res) => {
    const name = path.basename((req.url ?? '').split('?')[0]!);
    requests.push(name);
    const to = redirects.get(name);
    if (to) {
      res.writeHead(302, { location: `/${to}` }).end();
      return;
    }
    const file = path.join(dir, name);
    let size: number;
    try {
      size = statSync(file).size;
    } catch {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {
      'content-type': types[path.extname(name).slice(1)] ?? 'application/octet-stream',
      'content-length': size,
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return {
    ...server,
    dir,
    requests,
    redirects,
    urlOf: (name) => `${server.url}/${name}`,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Dark text on white, one caption after another (what mode=ocr should read back). */
export async function captionVideo(
  file: string,
  captions: ReadonlyArray<{ text: string; startSec: number; endSec: number }>,
  durationSec: number,
): Promise<void> {
  const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';
  const draw = captions
    .map(
      (c) =>
        `drawtext=fontfile=${font}:text='${c.text}':fontsize=64:fontcolor=black:x=(w-tw)/2:y=(h-th)/2:` +
        `enable='between(t,${c.startSec},${c.endSec})'`,
    )
    .join(',');
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `color=c=white:s=1280x720:d=${durationSec}:r=25,${draw}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-y',
    file,
  ]);
}
