// A stand-in for an OpenAI-compatible AI provider on loopback. It speaks the real protocol and
// CHECKS what it receives: uploaded audio is read with ffprobe/ffmpeg (format, rate, channels,
// length) and "recognised" by finding the tones in it (one segment per tone, named by its pitch,
// timed on the upload's own clock); chat requests are parsed, their images decoded to count them
// and read their sizes. Answers can be scripted per call (errors, Retry-After, model output).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Loopback, startServer } from './loopback.js';

const run = promisify(execFile);

export interface AudioUpload {
  fields: Record<string, string[]>;
  filename: string;
  contentType: string;
  bytes: number;
  codec: string | null;
  sampleRate: number | null;
  channels: number | null;
  durationSec: number;
  /** Tones found: seconds on the upload's clock, pitch in Hz. */
  tones: Array<{ start: number; end: number; hz: number }>;
}

export interface ChatImage {
  mime: string;
  width: number;
  height: number;
  bytes: number;
  detail: string | null;
}

export interface ChatCall {
  body: {
    model: string;
    messages: Array<{ role: string; content: unknown }>;
    response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict: boolean } };
  };
  images: ChatImage[];
  /** All text parts and string contents, joined. */
  text: string;
  authorization: string | undefined;
}

export interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Drop the connection without an answer. */
  hangUp?: boolean;
}

export type ChatResponder = (call: ChatCall, n: number) => string | Scripted;

export interface OpenAiServer extends Loopback {
  /** Base URL as UNFURL_AI_BASE_URL takes it (with /v1). */
  baseUrl: string;
  uploads: AudioUpload[];
  chats: ChatCall[];
  /** Every request's path and status, in order. */
  log: Array<{ path: string; status: number; at: number }>;
  /** Scripted failures before the real answer: return a Scripted to answer with it, null to go on. */
  failWith: ((path: string, n: number) => Scripted | null) | null;
  /** What the chat model says (default: a description naming the frame count). */
  chat: ChatResponder;
  language: string;
  /** Milliseconds each transcription takes (a slow provider). */
  delayMs: number;
  reset(): void;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** A strict multipart/form-data parser: a malformed body throws (and the request gets a 400). */
export function parseMultipart(body: Buffer, contentType: string): Part[] {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!m) throw new Error('no boundary');
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  const parts: Part[] = [];
  let at = body.indexOf(boundary);
  if (at !== 0) throw new Error('body does not start with the boundary');
  for (;;) {
    at += boundary.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    if (body.subarray(at, at + 2).toString() !== '\r\n') throw new Error('bad boundary line');
    at += 2;
    const headEnd = body.indexOf('\r\n\r\n', at);
    if (headEnd < 0) throw new Error('part without headers end');
    const head = body.subarray(at, headEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), boundary]), headEnd + 4);
    if (next < 0) throw new Error('part without closing boundary');
    const disposition = /content-disposition:\s*form-data;\s*name="([^"]*)"(?:;\s*filename="([^"]*)")?/i.exec(
      head,
    );
    if (!disposition) throw new Error(`part without form-data disposition: ${head}`);
    parts.push({
      name: disposition[1]!,
      filename: disposition[2],
      contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1],
      data: body.subarray(headEnd + 4, next),
    });
    at = next + 2;
  }
}

/** Width and height from a JPEG's start-of-frame marker (null when it is not a JPEG). */
export function jpegSize(buf: Buffer): { width: number; height: number } | null {
  if (buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 < buf.length) {
    if (buf[at] !== 0xff) return null;
    const marker = buf[at + 1]!;
    const length = buf.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: buf.readUInt16BE(at + 5), width: buf.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/** Tones in 16 kHz mono PCM: loud 20 ms windows merged into runs, pitch from zero crossings. */
export function findTones(pcm: Int16Array, rate = 16000): Array<{ start: number; end: number; hz: number }> {
  const win = Math.round(rate * 0.02);
  const loud: boolean[] = [];
  for (let i = 0; i + win <= pcm.length; i += win) {
    let sum = 0;
    for (let j = i; j < i + win; j++) sum += pcm[j]! * pcm[j]!;
    loud.push(Math.sqrt(sum / win) > 1500);
  }
  const tones: Array<{ start: number; end: number; hz: number }> = [];
  let i = 0;
  while (i < loud.length) {
    if (!loud[i]) {
      i++;
      continue;
    }
    let j = i;
    // Gaps under 200 ms belong to the same tone.
    while (j < loud.length && (loud[j] || loud.slice(j, j + 10).some(Boolean))) j++;
    const from = i * win;
    const to = Math.min(pcm.length, j * win);
    if (to - from >= rate * 0.2) {
      // Pitch from the span between the first and the last zero crossing (no edge effects).
      let first = -1;
      let last = -1;
      let crossings = 0;
      // With hysteresis: codec noise around zero must not count as crossings.
      let sign = 0;
      for (let k = from; k < to; k++) {
        const now = pcm[k]! > 300 ? 1 : pcm[k]! < -300 ? -1 : 0;
        if (now === 0 || now === sign) continue;
        if (sign !== 0) {
          if (first < 0) first = k;
          last = k;
          crossings++;
        }
        sign = now;
      }
      const hz = last > first ? (crossings - 1) / 2 / ((last - first) / rate) : 0;
      tones.push({ start: from / rate, end: to / rate, hz: Math.round(hz / 10) * 10 });
    }
    i = j;
  }
  return tones;
}

const defaultChat: ChatResponder = (call) =>
  `A video shown as ${call.images.length} frames${call.text.includes('Transcript') ? ', with its transcript' : ''}.`;

export async function startOpenAiServer(): Promise<OpenAiServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'openai-stand-in-'));
  const counts = new Map<string, number>();
  let uploadNo = 0;
  const state = {
    uploads: [] as AudioUpload[],
    chats: [] as ChatCall[],
    log: [] as Array<{ path: string; status: number; at: number }>,
    failWith: null as OpenAiServer['failWith'],
    chat: defaultChat,
    language: 'english',
    delayMs: 0,
  };
  const send = (req: http.IncomingMessage, res: http.ServerResponse, s: Scripted) => {
    state.log.push({ path: req.url ?? '', status: s.hangUp ? 0 : s.status, at: Date.now() });
    if (s.hangUp) {
      res.socket?.destroy();
      return;
    }
    res.writeHead(s.status, { 'content-type': 'application/json', ...s.headers });
    res.end(typeof s.body === 'string' ? s.body : JSON.stringify(s.body ?? {}));
  };
  const bad = (message: string): Scripted => ({
    status: 400,
    body: { error: { message, type: 'invalid_request_error' } },
  });

  async function transcription(req: http.IncomingMessage, body: Buffer): Promise<Scripted> {
    const parts = parseMultipart(body, String(req.headers['content-type']));
    const file = parts.find((p) => p.name === 'file');
    if (!file?.filename) return bad('file is required');
    const fields: Record<string, string[]> = {};
    for (const p of parts.filter((x) => x.name !== 'file')) {
      fields[p.name] = [...(fields[p.name] ?? []), p.data.toString('utf8')];
    }
    const saved = path.join(dir, `upload-${++uploadNo}-${file.filename.replace(/[^\w.]/g, '_')}`);
    writeFileSync(saved, file.data);
    let probe: { streams?: Array<Record<string, unknown>>; format?: { duration?: string } };
    try {
      const out = await run('ffprobe', [
        '-v',
        'error',
        '-of',
        'json',
        '-show_format',
        '-show_streams',
        saved,
      ]);
      probe = JSON.parse(out.stdout);
    } catch {
      return bad('Invalid file format.');
    }
    const audio = probe.streams?.find((s) => s.codec_type === 'audio');
    const pcm = await run(
      'ffmpeg',
      ['-v', 'error', '-i', saved, '-f', 's16le', '-ac', '1', '-ar', '16000', '-'],
      {
        encoding: 'buffer',
        maxBuffer: 512 * 1024 * 1024,
      },
    );
    const raw = pcm.stdout as unknown as Buffer;
    const samples = new Int16Array(raw.buffer, raw.byteOffset, Math.floor(raw.length / 2));
    const upload: AudioUpload = {
      fields,
      filename: file.filename,
      contentType: file.contentType ?? '',
      bytes: file.data.length,
      codec: (audio?.codec_name as string) ?? null,
      sampleRate: audio?.sample_rate ? Number(audio.sample_rate) : null,
      channels: (audio?.channels as number) ?? null,
      durationSec: Number(probe.format?.duration ?? 0),
      tones: findTones(samples),
    };
    state.uploads.push(upload);
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    if (fields.response_format?.[0] !== 'verbose_json') {
      return { status: 200, body: { text: upload.tones.map((t) => `tone ${t.hz} Hz`).join(' ') } };
    }
    return {
      status: 200,
      body: {
        task: 'transcribe',
        language: state.language,
        duration: upload.durationSec,
        text: upload.tones.map((t) => `tone ${t.hz} Hz.`).join(' '),
        segments: upload.tones.map((t, id) => ({
          id,
          seek: 0,
          start: Number(t.start.toFixed(2)),
          end: Number(t.end.toFixed(2)),
          text: ` tone ${t.hz} Hz.`,
          tokens: [],
          temperature: 0,
          avg_logprob: -0.2,
          compression_ratio: 1.2,
          no_speech_prob: 0.01,
        })),
      },
    };
  }

  function chatCompletion(req: http.IncomingMessage, body: Buffer, n: number): Scripted {
    let parsed: ChatCall['body'];
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return bad('body is not JSON');
    }
    if (!parsed.model || !Array.isArray(parsed.messages)) return bad('model and messages are required');
    const images: ChatImage[] = [];
    const texts: string[] = [];
    for (const m of parsed.messages) {
      if (typeof m.content === 'string') texts.push(m.content);
      else if (Array.isArray(m.content)) {
        type Part = { type?: string; text?: string; image_url?: { url?: string; detail?: string } };
        for (const part of m.content as Part[]) {
          if (part.type === 'text') texts.push(String(part.text));
          else if (part.type === 'image_url') {
            const url = String(part.image_url?.url ?? '');
            const data = /^data:([^;]+);base64,(.*)$/s.exec(url);
            if (!data) return bad('image_url must be a base64 data URL here');
            const bytes = Buffer.from(data[2]!, 'base64');
            const size = jpegSize(bytes);
            if (!size) return bad('image is not a JPEG');
            images.push({
              mime: data[1]!,
              ...size,
              bytes: bytes.length,
              detail: part.image_url?.detail ?? null,
            });
          } else return bad(`unknown content part ${part.type}`);
        }
      }
    }
    const call: ChatCall = {
      body: parsed,
      images,
      text: texts.join('\n'),
      authorization: req.headers.authorization,
    };
    state.chats.push(call);
    const answer = state.chat(call, n);
    if (typeof answer !== 'string') return answer;
    return {
      status: 200,
      body: {
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        model: parsed.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: answer } }],
      },
    };
  }

  const server = await startServer(async (req, res) => {
    try {
      const body = await readBody(req);
      const route = (req.url ?? '').split('?')[0]!;
      const n = (counts.get(route) ?? 0) + 1;
      counts.set(route, n);
      const scripted = state.failWith?.(route, n);
      if (scripted) return send(req, res, scripted);
      if (req.method === 'POST' && route === '/v1/audio/transcriptions')
        return send(req, res, await transcription(req, body));
      if (req.method === 'POST' && route === '/v1/chat/completions')
        return send(req, res, chatCompletion(req, body, n));
      send(req, res, { status: 404, body: { error: { message: `no route ${route}` } } });
    } catch (err) {
      send(req, res, { status: 400, body: { error: { message: (err as Error).message } } });
    }
  });
  const result = Object.assign(state, {
    url: server.url,
    port: server.port,
    baseUrl: `${server.url}/v1`,
    reset() {
      state.uploads.length = 0;
      state.chats.length = 0;
      state.log.length = 0;
      state.failWith = null;
      state.chat = defaultChat;
      state.language = 'english';
      state.delayMs = 0;
      counts.clear();
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  return result as OpenAiServer;
}
