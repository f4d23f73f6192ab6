// The proxies of UNFURL_PROXY_URLS, handed out in turn so load (and blocks) spread across them.
import { type Dispatcher, ProxyAgent } from 'undici';

export class ProxyPool {
  private readonly agents: ProxyAgent[];
  private cursor = 0;

  constructor(urls: readonly string[]) {
    this.agents = urls.map(
      (uri) =>
        new ProxyAgent({ uri, connect: { timeout: 10_000 }, headersTimeout: 30_000, bodyTimeout: 30_000 }),
    );
  }

  get size(): number {
    return this.agents.length;
  }

  /** The next proxy in turn; undefined when none is configured (go direct). */
  next(): Dispatcher | undefined {
    if (this.agents.length === 0) return undefined;
    const agent = this.agents[this.cursor % this.agents.length]!;
    this.cursor = (this.cursor + 1) % this.agents.length;
    return agent;
  }

  async close(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.close()));
  }
}
