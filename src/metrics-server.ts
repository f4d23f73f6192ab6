// `unfurl worker` serves no API, yet it is where jobs settle credits and call platforms: with
// UNFURL_WORKER_METRICS_PORT set it answers GET /metrics (this process's registry) on its own port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRegistry } from './metrics.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(port: number, host: string): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    metricsRegistry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
