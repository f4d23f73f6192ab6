// /metrics for a process group (`unfurl serve --processes N`): a scrape lands on whichever process
// the kernel gives the connection, so that process asks the group's supervisor, which collects
// every member's registry over the IPC channel and answers their aggregate (counters summed, gauges
// read from the database taken from the asking process, which refreshed them just before).
// Outside a group, or when the supervisor does not answer in time, a process answers its own.
import type { ChildProcess } from 'node:child_process';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { metricsRegistry } from './metrics.js';

const ASK_GROUP = 'unfurl:group-metrics?';
const GROUP_ANSWER = 'unfurl:group-metrics';
const ASK_MEMBER = 'unfurl:member-metrics?';
const MEMBER_ANSWER = 'unfurl:member-metrics';
/** How long a member's registry, or the group's aggregate, is waited for. */
const TIMEOUT_MS = 3_000;

interface Message {
  type: string;
  id: number;
  text?: string;
  metrics?: MetricObjectWithValues<MetricValue<string>>[];
}

const isMessage = (m: unknown): m is Message =>
  typeof m === 'object' &&
  m !== null &&
  typeof (m as Message).type === 'string' &&
  typeof (m as Message).id === 'number';

export const isGroupMetricsRequest = (m: unknown): m is Message => isMessage(m) && m.type === ASK_GROUP;

let nextId = 1;
const waiting = new Map<number, (m: Message) => void>();

/** Sends `message` over `channel` and waits for the answer with the same id (null on timeout). */
function ask(
  channel: Pick<NodeJS.Process, 'send'> | ChildProcess,
  message: Message,
): Promise<Message | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.delete(message.id);
      resolve(null);
    }, TIMEOUT_MS);
    timer.unref();
    waiting.set(message.id, (answer) => {
      clearTimeout(timer);
      waiting.delete(message.id);
      resolve(answer);
    });
    try {
      channel.send?.(message);
    } catch {
      clearTimeout(timer);
      waiting.delete(message.id);
      resolve(null);
    }
  });
}

/** Routes an answer to whoever waits for it; true when the message was one. */
function settle(m: unknown): boolean {
  if (!isMessage(m) || (m.type !== GROUP_ANSWER && m.type !== MEMBER_ANSWER)) return false;
  waiting.get(m.id)?.(m);
  return true;
}

/** Whether this process is a member of a group (set by joinMetricsGroup). */
let member = false;

/** In a member: answers the supervisor's requests for this process's registry. */
export function joinMetricsGroup(): void {
  member = true;
  process.on('message', (m: unknown) => {
    if (settle(m)) return;
    if (isMessage(m) && m.type === ASK_MEMBER) {
      void metricsRegistry
        .getMetricsAsJSON()
        .then((metrics) => process.send?.({ type: MEMBER_ANSWER, id: m.id, metrics }));
    }
  });
}

/** The text /metrics answers: the group's aggregate in a member, this process's registry otherwise. */
export async function metricsText(): Promise<string> {
  if (!member || !process.send) return metricsRegistry.metrics();
  const own = await metricsRegistry.getMetricsAsJSON();
  const answer = await ask(process, { type: ASK_GROUP, id: nextId++, metrics: own });
  return answer?.text ?? metricsRegistry.metrics();
}

/** In the supervisor: every answer a member sends, routed; collects and aggregates for one request. */
export async function answerGroupMetrics(
  members: ReadonlyArray<ChildProcess | null>,
  asker: ChildProcess,
  request: Message,
): Promise<void> {
  const others = members.filter((m): m is ChildProcess => m !== null && m !== asker && m.connected);
  const theirs = await Promise.all(others.map((member) => ask(member, { type: ASK_MEMBER, id: nextId++ })));
  // The asker's registry first: 'first' gauges (read from the database) take its fresh values.
  const registries = [request.metrics ?? [], ...theirs.flatMap((a) => (a?.metrics ? [a.metrics] : []))];
  const text = await AggregatorRegistry.aggregate(registries).metrics();
  if (asker.connected) asker.send({ type: GROUP_ANSWER, id: request.id, text });
}

/** In the supervisor: hands a member's answers to the requests waiting for them. */
export function routeMemberAnswer(message: unknown): boolean {
  return settle(message);
}
