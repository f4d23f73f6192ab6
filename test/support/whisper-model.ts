// Writes whisper.cpp model files (the legacy "ggml" format every official ggml-*.bin uses) with
// random weights: the real layout — header, mel filters, vocabulary, every tensor the loader asks
// for in its shape and type — so the runtime loads and runs them exactly as it would a downloaded
// model. The encoder is all random (its cost does not depend on the values). The decoder is random
// too, except that its positional embedding steers each position towards one planned token, so it
// decodes like a trained model does — a timestamp, a few words, a timestamp pair every 7 s, end of
// text near 28 s — instead of sampling noise until every temperature fallback has failed. The words
// are meaningless; the timing, the segments and the plumbing are real. Seeded: one shape, one file.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export interface WhisperShape {
  /** 51864: English-only; 51865: multilingual (language detection works). */
  nVocab: number;
  /** Width of every layer; tiny is 384, base 512. */
  state: number;
  heads: number;
  /** Layers of the encoder and of the decoder each; tiny is 4, base 6. */
  layers: number;
}

/** The smallest shape that is still a whole model: fast to load and run in tests. */
export const MINI_EN: WhisperShape = { nVocab: 51864, state: 64, heads: 2, layers: 1 };
export const MINI_MULTILINGUAL: WhisperShape = { ...MINI_EN, nVocab: 51865 };
/** The exact shape of the official tiny.en (speed matches it; only the values differ). */
export const TINY_EN: WhisperShape = { nVocab: 51864, state: 384, heads: 6, layers: 4 };

const MAGIC = 0x67676d6c; // "ggml"
const N_AUDIO_CTX = 1500; // 30 s of audio after the encoder's stride-2 convolution
const N_TEXT_CTX = 448;
const N_MELS = 80;
const N_FFT = 201; // whisper.cpp's 400-sample window → 201 frequency bins
const BASE_TOKENS = 50256; // the GPT-2 byte-level tokens before <|endoftext|>
const SPACE_TOKEN = 220;
const F32 = 0;
const F16 = 1;

/** mulberry32: a small seeded generator, enough for weights nobody reads. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const halfScratch = new Float32Array(1);
const halfBits = new Uint32Array(halfScratch.buffer);

/** IEEE half precision bits of `value` (normal range; tiny values flush to zero). */
function toHalf(value: number): number {
  halfScratch[0] = value;
  const bits = halfBits[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  if (exp <= 0) return sign;
  if (exp >= 31) return sign | 0x7bff;
  return sign | (exp << 10) | ((bits >>> 13) & 0x3ff);
}

/** random: uniform ±scale; quiet: nearly silent (the decoder's residual writes); gain: the final norm. */
type Fill = 'random' | 'quiet' | 'ones' | 'gain' | 'zeros' | 'embedding' | 'steering';

interface TensorSpec {
  name: string;
  /** ggml order: ne[0] is the fastest-varying dimension. */
  ne: number[];
  type: typeof F32 | typeof F16;
  fill: Fill;
}

function tensors(shape: WhisperShape): TensorSpec[] {
  const s = shape.state;
  const out: TensorSpec[] = [];
  const add = (name: string, ne: number[], type: typeof F32 | typeof F16, fill: Fill = 'random') =>
    out.push({ name, ne, type, fill });
  const norm = (prefix: string) => {
    add(`${prefix}.weight`, [s], F32, 'ones');
    add(`${prefix}.bias`, [s], F32, 'zeros');
  };
  const attention = (prefix: string, out: Fill) => {
    add(`${prefix}.query.weight`, [s, s], F16);
    add(`${prefix}.query.bias`, [s], F32, 'zeros');
    add(`${prefix}.key.weight`, [s, s], F16);
    add(`${prefix}.value.weight`, [s, s], F16);
    add(`${prefix}.value.bias`, [s], F32, 'zeros');
    add(`${prefix}.out.weight`, [s, s], F16, out);
    add(`${prefix}.out.bias`, [s], F32, 'zeros');
  };
  const mlp = (prefix: string, out: Fill) => {
    add(`${prefix}.mlp.0.weight`, [s, 4 * s], F16);
    add(`${prefix}.mlp.0.bias`, [4 * s], F32, 'zeros');
    add(`${prefix}.mlp.2.weight`, [4 * s, s], F16, out);
    add(`${prefix}.mlp.2.bias`, [s], F32, 'zeros');
  };
  add('encoder.positional_embedding', [s, N_AUDIO_CTX], F32);
  add('encoder.conv1.weight', [3, N_MELS, s], F16);
  add('encoder.conv1.bias', [1, s], F32, 'zeros');
  add('encoder.conv2.weight', [3, s, s], F16);
  add('encoder.conv2.bias', [1, s], F32, 'zeros');
  norm('encoder.ln_post');
  for (let i = 0; i < shape.layers; i++) {
    const block = `encoder.blocks.${i}`;
    norm(`${block}.mlp_ln`);
    mlp(block, 'random');
    norm(`${block}.attn_ln`);
    attention(`${block}.attn`, 'random');
  }
  add('decoder.positional_embedding', [s, N_TEXT_CTX], F32, 'steering');
  add('decoder.token_embedding.weight', [s, shape.nVocab], F16, 'embedding');
  add('decoder.ln.weight', [s], F32, 'gain');
  add('decoder.ln.bias', [s], F32, 'zeros');
  for (let i = 0; i < shape.layers; i++) {
    const block = `decoder.blocks.${i}`;
    norm(`${block}.mlp_ln`);
    mlp(block, 'quiet');
    norm(`${block}.attn_ln`);
    attention(`${block}.attn`, 'quiet');
    norm(`${block}.cross_attn_ln`);
    attention(`${block}.cross_attn`, 'quiet');
  }
  return out;
}

const int32s = (...values: number[]) => Buffer.from(new Int32Array(values).buffer);

/** Triangular filters spaced on the mel scale over 0–8 kHz, as the real files carry. */
function melFilters(): Buffer {
  const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const edges = Array.from({ length: N_MELS + 2 }, (_, i) => hz((mel(8000) * i) / (N_MELS + 1)));
  const data = new Float32Array(N_MELS * N_FFT);
  for (let m = 0; m < N_MELS; m++) {
    const [lo, mid, hi] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
    for (let k = 0; k < N_FFT; k++) {
      const f = (k * 8000) / (N_FFT - 1);
      const w = f < lo || f > hi ? 0 : f <= mid ? (f - lo) / (mid - lo) : (hi - f) / (hi - mid);
      data[m * N_FFT + k] = (2 * w) / (hi - lo);
    }
  }
  return Buffer.from(data.buffer);
}

/** Pronounceable byte-level tokens (" sola", "ven", …), so the meaningless text still reads as words. */
function vocabulary(): Buffer {
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'da', 'pe', 'zu', 'ho'];
  const parts: Buffer[] = [int32s(BASE_TOKENS)];
  for (let i = 0; i < BASE_TOKENS; i++) {
    let word = i % 2 === 0 ? ' ' : '';
    for (let n = Math.floor(i / 2) + 1; n > 0; n = Math.floor(n / syllables.length)) {
      word += syllables[n % syllables.length];
    }
    // GPT-2's own places for the printable ASCII bytes and the lone space: the decoder looks " " up.
    if (i < 94) word = String.fromCharCode(33 + i);
    if (i === SPACE_TOKEN) word = ' ';
    const bytes = Buffer.from(word, 'utf8');
    parts.push(Buffer.from(new Uint32Array([bytes.length]).buffer), bytes);
  }
  return Buffer.concat(parts);
}

/** Special token ids, as whisper.cpp numbers them for each vocabulary. */
function specials(nVocab: number) {
  const multilingual = nVocab >= 51865;
  return {
    eot: multilingual ? 50257 : 50256,
    /** <|0.00|>; each further id is 20 ms later. */
    timestampBegin: multilingual ? 50364 : 50363,
    /** Tokens before the first generated one: <|startoftranscript|>, then language and task. */
    promptLength: multilingual ? 3 : 1,
  };
}

/** Every window decodes to segments this long (from its start)… */
export const SEGMENT_SECONDS = 7;
/** …of this many words each, */
export const WORDS_PER_SEGMENT = 5;
/** …and this many segments (28 s: the next window starts there, as whisper.cpp seeks to the last timestamp). */
export const SEGMENTS_PER_WINDOW = 4;

/** The tokens one 30 s window decodes to. */
function plannedWindow(nVocab: number): number[] {
  const { eot, timestampBegin } = specials(nVocab);
  const at = (sec: number) => timestampBegin + Math.round(sec / 0.02);
  const plan = [at(0)];
  for (let segment = 1; segment <= SEGMENTS_PER_WINDOW; segment++) {
    for (let w = 0; w < WORDS_PER_SEGMENT; w++) plan.push(2000 + 2 * (segment * 97 + w * 1013));
    plan.push(at(segment * SEGMENT_SECONDS));
    if (segment < SEGMENTS_PER_WINDOW) plan.push(at(segment * SEGMENT_SECONDS));
  }
  plan.push(eot);
  return plan;
}

interface Weights {
  next: () => number;
  scale: number;
  /** The token embedding, kept to aim the positional embedding at it. */
  embedding: Float32Array | null;
  shape: WhisperShape;
}

/** The decoder's final-norm gain: large enough that the planned token wins with p ≈ 1. */
const GAIN = 12;
/** How much more the position weighs than the current token in the decoder's input. */
const STEER = 4;

function values(spec: TensorSpec, w: Weights): Float32Array {
  const count = spec.ne.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count);
  switch (spec.fill) {
    case 'ones':
      return data.fill(1);
    case 'gain':
      return data.fill(GAIN);
    case 'zeros':
      return data;
    case 'steering': {
      // Row p aims at the token planned after position p (end of text where nothing is planned).
      const { eot, promptLength } = specials(w.shape.nVocab);
      const plan = plannedWindow(w.shape.nVocab);
      const s = w.shape.state;
      for (let p = 0; p < N_TEXT_CTX; p++) {
        const target = plan[p - (promptLength - 1)] ?? eot;
        for (let i = 0; i < s; i++) data[p * s + i] = STEER * w.embedding![target * s + i]!;
      }
      return data;
    }
    default: {
      const scale = spec.fill === 'quiet' ? w.scale / 100 : w.scale;
      for (let i = 0; i < count; i++) data[i] = (w.next() * 2 - 1) * scale;
      if (spec.fill === 'embedding') w.embedding = data;
      return data;
    }
  }
}

function encode(spec: TensorSpec, data: Float32Array): Buffer {
  if (spec.type === F32) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const half = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) half[i] = toHalf(data[i]!);
  return Buffer.from(half.buffer);
}

/** Writes a model of `shape` to `file` (f16 weights, like the official non-quantised files). */
export async function writeWhisperModel(file: string, shape: WhisperShape, seed = 1): Promise<void> {
  const next = random(seed);
  const out = createWriteStream(file);
  const write = async (chunk: Buffer) => {
    if (!out.write(chunk)) await once(out, 'drain');
  };
  const { nVocab, state, heads, layers } = shape;
  await write(Buffer.from(new Uint32Array([MAGIC]).buffer));
  await write(int32s(nVocab, N_AUDIO_CTX, state, heads, layers, N_TEXT_CTX, state, heads, layers));
  await write(int32s(N_MELS, F16));
  await write(int32s(N_MELS, N_FFT));
  await write(melFilters());
  await write(vocabulary());
  // Weights small enough that activations stay in range through the layers.
  const weights: Weights = { next, scale: 1 / Math.sqrt(state), embedding: null, shape };
  const specs = tensors(shape);
  // The token embedding first: the positional embedding is made from it.
  const embedding = specs.find((t) => t.fill === 'embedding')!;
  const made = new Map([[embedding.name, values(embedding, weights)]]);
  for (const spec of specs) {
    const name = Buffer.from(spec.name, 'utf8');
    await write(int32s(spec.ne.length, name.length, spec.type, ...spec.ne));
    await write(name);
    await write(encode(spec, made.get(spec.name) ?? values(spec, weights)));
  }
  out.end();
  await once(out, 'close');
}
