// The operator/user dashboard: a static page at `/` and its files under `/dashboard/`, plain HTML,
// CSS and ES modules read from this repository at start (no build step, nothing fetched at run time).
// It talks to the public API like any client, with a session token from POST /v1/auth/login.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  app.get(
    '/dashboard/:file',
    {
      config: { public: true },
      schema: { hide: true, params: Type.Object({ file: Type.String({ pattern: FILE_NAME }) }) },
    },
    async (request, reply) => send(request, reply, request.params.file),
  );
};
