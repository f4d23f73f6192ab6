// Loopback stand-ins for the outside world: an HTTP server with a handler, and an HTTP CONNECT proxy
// that tunnels to the requested target (or to a fixed one, to play a proxy whose exit is blocked).
import http from 'node:http';
import net from 'node:net';

export interface Loopback {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener): Promise<Loopback> {
  const server = http.createServer(handler);
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface LoopbackProxy extends Loopback {
  /** The `host:port` of every CONNECT it received. */
  connects: string[];
}

/**
 * An HTTP CONNECT proxy; `route` may send the tunnel somewhere else than asked, and `localAddress`
 * is the address its tunnels leave from (what the far end sees: 127.0.0.2, 127.0.0.3, …).
 */
export async function startConnectProxy(
  route?: (target: string) => string,
  options: { localAddress?: string } = {},
): Promise<LoopbackProxy> {
  const connects: string[] = [];
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client, head) => {
    const target = req.url ?? '';
    connects.push(target);
    const [host, port] = (route ? route(target) : target).split(':');
    const upstream = net.connect({ port: Number(port), host, localAddress: options.localAddress }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
