// The operator/user dashboard: a static page at `/` and its files under `/dashboard/`, plain HTML,
// CSS and ES modules read from this repository at start (no build step, nothing fetched at run time).
// It talks to the public API like any client, with a session token from POST /v1/auth/login.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { RoutePlugin } from '../typed.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const FILE_NAME = '^[a-z0-9-]{1,48}\\.(?:html|css|js|svg)$';

// Only our own files, no inline script or style, no framing; fetches only to this origin.
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * Where the files are: beside this module when run from source (tsx), or back in the source tree
 * when run from dist/ (tsc copies no non-TS files; the repository, and the Docker image, keep src/).
 */
export function dashboardDir(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'static'), path.resolve(here, '../../../src/http/dashboard/static')];
  return candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html'))) ?? null;
}

function loadFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const pattern = new RegExp(FILE_NAME);
  for (const name of fs.readdirSync(dir)) {
    if (!pattern.test(name)) continue;
    const body = fs.readFileSync(path.join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    files.set(name, { body, type: TYPES[path.extname(name)]!, etag });
  }
  return files;
}

/** CRC-32 (PNG's chunk check). */
function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/**
 * /favicon.ico, drawn here rather than stored: favicon.svg's mark (a white U on a navy rounded
 * square) as a 32×32 PNG inside an ICO, for browsers and tools that ask for /favicon.ico.
 */
export function faviconIco(): Buffer {
  const size = 32;
  const inside = (x: number, y: number) => {
    // The rounded square (radius 6).
    const cx = Math.min(Math.max(x, 6), size - 6);
    const cy = Math.min(Math.max(y, 6), size - 6);
    return (x - cx) ** 2 + (y - cy) ** 2 <= 36;
  };
  const onU = (x: number, y: number) => {
    if (y >= 9 && y < 18) return (x >= 8 && x < 12) || (x >= 20 && x < 24);
    const d = Math.hypot(x - 16, y - 18);
    return y >= 18 && d >= 4 && d <= 8;
  };
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0, then RGBA
    for (let x = 0; x < size; x++) {
      const px = x + 0.5;
      const py = y + 0.5;
      const rgba = !inside(px, py) ? [0, 0, 0, 0] : onU(px, py) ? [255, 255, 255, 255] : [16, 35, 63, 255];
      row.set(rgba, 1 + x * 4);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter, no interlace
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  // ICONDIR (reserved, type 1 = icon, one image) and its one ICONDIRENTRY.
  const dir = Buffer.alloc(22);
  dir.writeUInt16LE(1, 2);
  dir.writeUInt16LE(1, 4);
  dir.set([size, size, 0, 0], 6);
  dir.writeUInt16LE(1, 10); // planes
  dir.writeUInt16LE(32, 12); // bits per pixel
  dir.writeUInt32LE(png.length, 14);
  dir.writeUInt32LE(22, 18);
  return Buffer.concat([dir, png]);
}

export const dashboardRoutes: RoutePlugin = async (app) => {
  const dir = dashboardDir();
  if (!dir) app.log.error('dashboard files not found: `/` answers 404 (is src/http/dashboard/static there?)');
  const files = dir ? loadFiles(dir) : new Map<string, StaticFile>();

  const send = (request: FastifyRequest, reply: FastifyReply, name: string) => {
    const file = files.get(name);
    if (!file) throw new AppError('not_found', `No dashboard file named ${name}`);
    reply.headers(SECURITY_HEADERS);
    // Revalidated on every load (cheap 304s), so a new release is picked up at once.
    reply.header('Cache-Control', 'no-cache');
    reply.header('ETag', file.etag);
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.type(file.type).send(file.body);
  };

  app.get('/', { config: { public: true }, schema: { hide: true } }, async (request, reply) =>
    send(request, reply, 'index.html'),
  );
  // The folder itself, with or without its slash, is the dashboard's address too.
  for (const folder of ['/dashboard', '/dashboard/']) {
    app.get(folder, { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
      reply.redirect('/', 301),
    );
  }
  const ico = faviconIco();
  const icoTag = `"${createHash('sha256').update(ico).digest('base64url').slice(0, 22)}"`;
  app.get('/favicon.ico', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'public, max-age=86400');
    reply.header('ETag', icoTag);
    reply.header('X-Content-Type-Options', 'nosniff');
    if (request.headers['if-none-match'] === icoTag) return reply.code(304).send();
    return reply.type('image/x-icon').send(ico);
  });
  app.get(
    '/dashboard/:file',
    {
      config: { public: true },
      schema: { hide: true, params: Type.Object({ file: Type.String({ pattern: FILE_NAME }) }) },
    },
    async (request, reply) => send(request, reply, request.params.file),
  );
};
