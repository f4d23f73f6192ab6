// Ports for processes the tests and benchmarks start: a free one to hand out, and how many sockets
// listen on one (read from the kernel's table, so it counts sockets of every process).
import fs from 'node:fs';
import net from 'node:net';

/** A port that was free a moment ago (for listeners whose port must be chosen up front). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Listening TCP sockets on `port` (IPv4). */
export function listeningSockets(port: number): number {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[1]?.endsWith(hex) && fields[3] === '0A';
    }).length;
}
