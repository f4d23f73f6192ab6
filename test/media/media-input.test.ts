// What ffmpeg and ffprobe may open, on real files: ordinary video and audio (mp4, webm, mp3, wav) still
// probe and decode through every call site; an HLS playlist (also behind an ID3 tag), an ffconcat list
// and an image sequence — each shown first to make plain ffprobe read another file — are refused at the
// probe and at every decoder, even when named `.mp4`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { encodePart, extractAudio } from '../../src/media/asr/audio.js';
import { detectSilences } from '../../src/media/asr/silence.js';
import { ffprobePath, MediaToolError, type ProbeResult, probe, runTool } from '../../src/media/ffmpeg.js';
import { keyFrames, sampleGrayFrames } from '../../src/media/frames.js';
import { haveFfmpeg } from './ai/media.js';

const run = promisify(execFile);
const ffmpeg = haveFfmpeg();
let dir: string;
const file = (name: string) => path.join(dir, name);
const lavfi = (...args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

beforeAll(async () => {
  if (!ffmpeg) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'media-input-'));
  const picture = ['-f', 'lavfi', '-i', 'testsrc2=s=96x64:r=10:d=1'];
  const sound = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'];
  await lavfi(
    ...picture,
    ...sound,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-c:a',
    'aac',
    file('clip.mp4'),
  );
  await lavfi(...picture, ...sound, '-c:v', 'libvpx', '-b:v', '100k', '-c:a', 'libopus', file('clip.webm'));
  await lavfi(...sound, '-c:a', 'libmp3lame', file('tone.mp3'));
  await lavfi(...sound, file('tone.wav'));
  // The file an attacker wants read: any file on the server's disk.
  await lavfi(...picture, '-c:v', 'libx264', '-preset', 'ultrafast', file('secret.mp4'));
  await writeFile(
    file('hls.mp4'),
    `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\nfile://${file('secret.mp4')}\n#EXT-X-ENDLIST\n`,
  );
  // Past the download's check of the first bytes: ffmpeg skips an ID3 tag before it probes.
  const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]);
  await writeFile(file('id3-hls.mp3'), Buffer.concat([id3, await readFile(file('hls.mp4'))]));
  // ffconcat's safe mode still takes a plain name next to the list.
  await writeFile(file('list.mp4'), 'ffconcat version 1.0\nfile secret.mp4\n');
  await lavfi('-f', 'lavfi', '-i', 'color=c=red:s=32x32:r=10:d=0.2', file('img-%03d.png'));
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The demuxer plain ffprobe (no allow-list) picks for a file. */
async function plainFormat(input: string): Promise<string> {
  const args = ['-v', 'error', '-show_entries', 'format=format_name', '-of', 'csv=p=0', input];
  const { stdout } = await runTool(ffprobePath(), args, { maxStdoutBytes: 4096 });
  return stdout.toString().trim();
}

const HOSTILE = [
  ['an HLS playlist named .mp4', 'hls.mp4', 'hls'],
  ['an HLS playlist behind an ID3 tag, named .mp3', 'id3-hls.mp3', 'hls'],
  ['an ffconcat list named .mp4', 'list.mp4', 'concat'],
  ['an image-sequence pattern', 'img-%03d.png', 'image2'],
] as const;

/** What probe would answer for a one-second 96×64 video (lets the decoders be called without probing). */
const VIDEO: ProbeResult = { durationSec: 1, hasVideo: true, hasAudio: true, width: 96, height: 64, fps: 10 };

describe.skipIf(!ffmpeg)('media input', () => {
  it('the hostile inputs are real: plain ffprobe follows them to other files', async () => {
    for (const [, name, demuxer] of HOSTILE) expect(await plainFormat(file(name)), name).toBe(demuxer);
  });

  it('mp4, webm, mp3 and wav still probe and decode at every call site', async () => {
    for (const name of ['clip.mp4', 'clip.webm']) {
      const probed = await probe(file(name));
      expect(probed, name).toMatchObject({ hasVideo: true, hasAudio: true, width: 96, height: 64 });
      expect(probed.durationSec, name).toBeCloseTo(1, 0);
      let frames = 0;
      for await (const _ of sampleGrayFrames(file(name), { fps: 4, probed })) frames++;
      expect(frames, name).toBeGreaterThanOrEqual(3);
      const keys = await keyFrames(file(name), { max: 2, maxResolution: 64, dir, probed });
      expect(keys.length, name).toBe(2);
    }
    for (const name of ['tone.mp3', 'tone.wav', 'clip.webm']) {
      expect((await probe(file(name))).hasAudio, name).toBe(true);
      const flac = file(`${name}.flac`);
      await extractAudio(file(name), flac, { maxSeconds: 10, signal: AbortSignal.timeout(30_000) });
      expect((await probe(flac)).durationSec, name).toBeCloseTo(1, 0);
      await detectSilences(flac, 1, { signal: AbortSignal.timeout(30_000) });
      const part = file(`${name}.part.mp3`);
      const bytes = await encodePart(flac, part, { startSec: 0, endSec: 0.5 }, AbortSignal.timeout(30_000));
      expect(bytes, name).toBeGreaterThan(0);
    }
  });

  it('refuses playlists, lists and image sequences: probe answers 400 naming url', async () => {
    for (const [what, name] of HOSTILE) {
      const err = await probe(file(name)).catch((e: unknown) => e);
      expect(err, what).toBeInstanceOf(AppError);
      expect((err as AppError).code, what).toBe('invalid_request');
      expect((err as AppError).details, what).toBe('url');
      expect((err as AppError).message, what).toMatch(/playlist/);
    }
  });

  it('refuses them at every decoding call site too, not only at the probe', async () => {
    const signal = AbortSignal.timeout(30_000);
    for (const [what, name] of HOSTILE) {
      const frames = async () => {
        for await (const _ of sampleGrayFrames(file(name), { probed: VIDEO })) {
          // reading any frame would be a leak
        }
      };
      await expect(frames(), what).rejects.toBeInstanceOf(MediaToolError);
      const keys = keyFrames(file(name), { max: 1, maxResolution: 64, dir, probed: VIDEO });
      await expect(keys, what).rejects.toBeInstanceOf(MediaToolError);
      const audio = extractAudio(file(name), file('leak.flac'), { maxSeconds: 10, signal });
      await expect(audio, what).rejects.toThrow(/sound/);
      await expect(detectSilences(file(name), 1, { signal }), what).rejects.toBeInstanceOf(MediaToolError);
      const part = encodePart(file(name), file('leak.mp3'), { startSec: 0, endSec: 1 }, signal);
      await expect(part, what).rejects.toBeInstanceOf(MediaToolError);
    }
  });

  it('mp4 data references (external tracks) are off in the installed ffmpeg', async () => {
    const { stdout } = await runTool('ffmpeg', ['-hide_banner', '-h', 'demuxer=mov'], {
      maxStdoutBytes: 1 << 20,
    });
    expect(stdout.toString()).toMatch(/-enable_drefs\s+<boolean>.*\(default false\)/);
  });
});
