// A whisper.cpp process: loads the model named in argv once, then recognises one file at a time
// on request. Run by engine.ts in a child process because whisper.cpp's full() is synchronous (it
// would block an event loop for minutes) and a C++ exception inside it aborts the whole process.
import { readFile } from 'node:fs/promises';
import { Whisper, WhisperFullParams, WhisperSamplingStrategy } from '@napi-rs/whisper';
import type { FromChild, RunMessage, ToChild, WhisperSegment } from './protocol.js';

interface RawSegment {
  text: string;
  /** Centiseconds, as whisper.cpp counts. */
  start: number;
  end: number;
}

const send = (message: FromChild) => process.send?.(message);

/** Waits (at most `ms`) until the queued segment callbacks have all arrived: their text adds up to `full`. */
async function settled(segments: RawSegment[], full: string, ms: number): Promise<void> {
  const target = full.replace(/\s+/g, '');
  const deadline = Date.now() + ms;
  while (
    segments
      .map((s) => s.text)
      .join('')
      .replace(/\s+/g, '') !== target &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function run(model: Whisper, multilingual: boolean, message: RunMessage): Promise<FromChild> {
  const read = await readFile(message.pcmFile);
  // A Float32Array view needs 4-byte alignment; a pooled small buffer may not have it.
  const bytes = read.byteOffset % 4 === 0 ? read : new Uint8Array(read);
  const samples = new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  const params = new WhisperFullParams(WhisperSamplingStrategy.Greedy);
  params.nThreads = message.threads;
  // Each part on its own: earlier text as a prompt is where decoding loops start.
  params.noContext = true;
  params.printProgress = false;
  params.printRealtime = false;
  params.printTimestamps = false;
  params.language = multilingual ? (message.language ?? 'auto') : 'en';
  const segments: RawSegment[] = [];
  // Segments arrive through queued callbacks: after full() has returned.
  params.onNewSegment = (segment: RawSegment) => segments.push(segment);
  const full = model.full(params, samples);
  await settled(segments, full, 5000);
  const out: WhisperSegment[] = segments.map((s) => ({
    text: s.text,
    startMs: s.start * 10,
    endMs: s.end * 10,
  }));
  const language = multilingual ? Whisper.lang(model.fullLangId) : 'en';
  return { type: 'done', id: message.id, segments: out, language };
}

function main(): void {
  const modelPath = process.argv[2];
  let model: Whisper;
  try {
    if (!modelPath) throw new Error('no model file named');
    model = new Whisper(modelPath);
  } catch (err) {
    send({ type: 'load_failed', message: (err as Error).message });
    process.disconnect?.();
    process.exitCode = 1;
    return;
  }
  const multilingual = model.isMultilingual !== 0;
  // One run at a time: the parent sends the next only after this one's answer.
  let queue = Promise.resolve();
  process.on('message', (message: ToChild) => {
    queue = queue.then(async () => {
      const answer = await run(model, multilingual, message).catch(
        (err: Error): FromChild => ({ type: 'failed', id: message.id, message: err.message }),
      );
      send(answer);
    });
  });
  // The parent gone: nothing more will be asked.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', multilingual });
}

main();
