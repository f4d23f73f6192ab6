// An open-loop HTTP/1.1 load generator on raw sockets: requests go out on their schedule whatever came
// back before, each on a connection of its own while it is answered (as many clients would send
// them), so a server that falls behind sees the backlog as requests in progress. Written on bare
// sockets because a general client (undici) costs about as much CPU per request as the cached answer
// it measures: on a 2-core machine the client then fell behind first, and its own queue, not the
// server, made the latency. Only what a benchmark needs of HTTP: keep-alive, Content-Length bodies.
import net from 'node:net';

export interface OpenLoopResult {
  sent: number;
  byStatus: Map<number, number>;
  /** Latency (ms) of each answer by status, from its scheduled send to its last byte. */
  latencies: Map<number, number[]>;
  /** Answers that carried a Retry-After header, by status. */
  withRetryAfter: Map<number, number>;
  /** Requests whose connection failed or closed before the answer. */
  errors: number;
  /** Requests not sent because every allowed connection was busy (the client's limit, not the server's). */
  unsent: number;
  /** Connections opened during the run (every pre-opened one was busy), and the latency of their first answers. */
  openedDuring: number;
  firstOnNew: number[];
}

interface Conn {
  socket: net.Socket;
  buffer: Buffer;
  startedAt: number;
  /** Set while the connection's warm-up request is out: its answer is not counted. */
  warming?: () => void;
  /** Opened during the run and not answered yet. */
  fresh?: boolean;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Parses one whole answer at the start of `buf`: its status, Retry-After, and length; null if not all there. */
function parseAnswer(buf: Buffer): { status: number; retryAfter: boolean; length: number } | null {
  const headEnd = buf.indexOf(HEAD_END);
  if (headEnd < 0) return null;
  const head = buf.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const lower = head.toLowerCase();
  const at = lower.indexOf('\r\ncontent-length:');
  const bodyLength = at < 0 ? 0 : Number.parseInt(lower.slice(at + 17, lower.indexOf('\r\n', at + 2)), 10);
  const length = headEnd + 4 + bodyLength;
  if (buf.length < length) return null;
  return { status, retryAfter: lower.includes('\r\nretry-after:'), length };
}

/**
 * Sends `rate` GET requests per second to `url` for `seconds`; waits for every answer (or error).
 * `preconnect` connections are opened before the first request and each makes one request of
 * `warmUrl` (answered before the run starts), as clients already talking to the server: then the
 * overload is requests, not a storm of new connections that the server has yet to accept.
 */
export async function openLoop(
  url: string,
  headers: Record<string, string>,
  rate: number,
  seconds: number,
  { maxConnections = 8000, preconnect = 0, warmUrl = '/health' } = {},
): Promise<OpenLoopResult> {
  const target = new URL(url);
  const port = Number(target.port);
  const lines = [`GET ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const request = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  const out: OpenLoopResult = {
    sent: 0,
    byStatus: new Map(),
    latencies: new Map(),
    withRetryAfter: new Map(),
    errors: 0,
    unsent: 0,
    openedDuring: 0,
    firstOnNew: [],
  };
  const idle: Conn[] = [];
  let open = 0;
  let busy = 0;
  let settle: () => void = () => {};
  const allAnswered = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let sending = true;
  const maybeDone = () => {
    if (!sending && busy === 0) settle();
  };

  const answered = (conn: Conn, status: number, retryAfter: boolean) => {
    if (conn.warming) {
      conn.warming();
      conn.warming = undefined;
      return;
    }
    const took = performance.now() - conn.startedAt;
    out.byStatus.set(status, (out.byStatus.get(status) ?? 0) + 1);
    if (!out.latencies.has(status)) out.latencies.set(status, []);
    out.latencies.get(status)!.push(took);
    if (retryAfter) out.withRetryAfter.set(status, (out.withRetryAfter.get(status) ?? 0) + 1);
    if (conn.fresh) {
      out.firstOnNew.push(took);
      conn.fresh = false;
    }
    busy--;
    idle.push(conn);
    maybeDone();
  };

  const connect = (): Conn => {
    const conn: Conn = { socket: net.connect(port, target.hostname), buffer: Buffer.alloc(0), startedAt: 0 };
    open++;
    conn.socket.setNoDelay(true);
    conn.socket.on('data', (chunk: Buffer) => {
      conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk]);
      const answer = parseAnswer(conn.buffer);
      if (!answer) return;
      conn.buffer = conn.buffer.subarray(answer.length);
      answered(conn, answer.status, answer.retryAfter);
    });
    const lost = () => {
      open--;
      const at = idle.indexOf(conn);
      if (at >= 0) idle.splice(at, 1);
      else if (conn.startedAt > 0) {
        // It was waiting for an answer.
        out.errors++;
        busy--;
        maybeDone();
      }
      conn.startedAt = 0;
    };
    conn.socket.on('error', () => {});
    conn.socket.on('close', lost);
    return conn;
  };

  const send = (scheduledAt: number) => {
    let conn = idle.pop();
    if (!conn) {
      if (open >= maxConnections) {
        out.unsent++;
        return;
      }
      conn = connect();
      conn.fresh = true;
      out.openedDuring++;
    }
    conn.startedAt = scheduledAt;
    busy++;
    out.sent++;
    conn.socket.write(request);
  };

  await Promise.all(
    Array.from({ length: Math.min(preconnect, maxConnections) }, async () => {
      const conn = connect();
      await new Promise<void>((resolve) => {
        conn.warming = resolve;
        conn.socket.once('close', resolve);
        conn.socket.write(`GET ${warmUrl} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`);
      });
      if (!conn.socket.destroyed) idle.push(conn);
    }),
  );

  const tickMs = 5;
  const start = performance.now();
  let scheduled = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const elapsed = Math.min(now - start, seconds * 1000);
      // Catch up on ticks the timer missed, so the offered rate holds when this loop runs late; each
      // request's latency counts from when it was due.
      const due = Math.floor((elapsed / 1000) * rate);
      for (; scheduled < due; scheduled++) send(start + (scheduled / rate) * 1000);
      if (now - start >= seconds * 1000) {
        clearInterval(timer);
        resolve();
      }
    }, tickMs);
  });
  sending = false;
  maybeDone();
  await allAnswered;
  for (const conn of idle) conn.socket.destroy();
  return out;
}
