// The media tool runner: how a tool's exit, silence, absence, flood of output or abort is reported,
// with the real ffmpeg/ffprobe (and a shell standing in for a tool that hangs).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { MediaToolError, probe, runTool, streamTool } from '../../src/media/ffmpeg.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'unfurl-ffmpeg-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runTool', () => {
  it('collects stdout of a tool that succeeds', async () => {
    const { stdout } = await runTool('ffmpeg', ['-hide_banner', '-version'], { maxStdoutBytes: 1 << 20 });
    expect(stdout.toString()).toMatch(/^ffmpeg version/);
  });

  it('rejects a non-zero exit with the last lines of stderr', async () => {
    const err = await runTool('ffmpeg', ['-hide_banner', '-i', path.join(dir, 'missing.mp4')]).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(MediaToolError);
    expect(err.message).toMatch(/ffmpeg exited with 1: .*No such file/);
  });

  it('kills a tool that outlives its time limit', async () => {
    const started = Date.now();
    const err = await runTool('sh', ['-c', 'sleep 30'], { timeoutMs: 200 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.message).toMatch(/took longer than 200 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('stops a tool that writes more than it may', async () => {
    const err = await runTool('sh', ['-c', 'yes | head -c 100000'], { maxStdoutBytes: 1000 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('payload_too_large');
  });

  it('says how to install a tool that is missing', async () => {
    const err = await runTool('ffmpeg-not-here', []).catch((e) => e);
    expect(err.message).toMatch(/not installed \(apt-get install ffmpeg\)/);
  });

  it('rejects at once, with the reason given, when aborted', async () => {
    const controller = new AbortController();
    const running = runTool('sh', ['-c', 'sleep 30'], { signal: controller.signal });
    controller.abort(new Error('job cancelled'));
    await expect(running).rejects.toThrow('job cancelled');
  });
});

describe('streamTool', () => {
  it('yields output as it comes and reports a failing exit from the loop', async () => {
    const chunks: Buffer[] = [];
    const loop = async () => {
      for await (const chunk of streamTool('sh', ['-c', 'printf abc; exit 3'])) chunks.push(chunk);
    };
    await expect(loop()).rejects.toBeInstanceOf(MediaToolError);
    expect(Buffer.concat(chunks).toString()).toBe('abc');
  });
});

describe('probe', () => {
  it('answers 400 naming url for a file that is not media', async () => {
    const file = path.join(dir, 'page.html');
    await writeFile(file, '<html><body>not a video</body></html>');
    const err = await probe(file).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_request');
  });
});
