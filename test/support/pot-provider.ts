// A loopback stand-in for an operator-run PO token provider speaking the bgutil HTTP protocol:
// POST /get_pot with a JSON body naming the content binding, answered with the token, the binding
// and its expiry (camelCase, as the reference server answers). Calls are recorded; on demand it is
// down (HTTP 500 with an error text, as the reference server answers a failed mint), slow (never
// answers) or answers garbage.
import { type Loopback, startServer } from './loopback.js';

export type PotProviderMode = 'ok' | 'down' | 'slow' | 'garbage';

export interface PotProvider extends Loopback {
  /** The bodies of the /get_pot calls, in order. */
  calls: Array<Record<string, unknown>>;
  mode: PotProviderMode;
  /** When the tokens it mints expire (ms since the epoch); default an hour after the call. */
  expiresAt?: number;
}

/** The token the stand-in mints for a content binding (long enough to look like one). */
export const potFor = (binding: string) => `MnQt${Buffer.from(`pot:${binding}`).toString('base64url')}AAAA`;

export async function startPotProvider(): Promise<PotProvider> {
  const hung = new Set<import('node:http').ServerResponse>();
  const state = { calls: [] as Array<Record<string, unknown>>, mode: 'ok' as PotProviderMode } as Pick<
    PotProvider,
    'calls' | 'mode' | 'expiresAt'
  >;
  const server = await startServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/get_pot') {
        res.writeHead(404).end();
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      } catch {}
      state.calls.push(body);
      if (state.mode === 'slow') {
        hung.add(res);
        return;
      }
      if (state.mode === 'down') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"{}"}');
        return;
      }
      if (state.mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>It works!</body></html>');
        return;
      }
      const binding = String(body.content_binding ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          poToken: potFor(binding),
          contentBinding: binding,
          expiresAt: new Date(state.expiresAt ?? Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
  });
  return Object.assign(state, {
    url: server.url,
    port: server.port,
    close: async () => {
      for (const res of hung) res.destroy();
      await server.close();
    },
  });
}
