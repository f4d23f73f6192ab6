// The walk over the player clients: each is asked in turn until one serves. A client that served
// after others were turned away is asked first the next time (per use, in this process), so a client
// the platform has started refusing costs one wasted call, not one per request. When none serves, the
// answer is the most telling of their reasons: what a client saw of the video beats a refusal.
import { AppError } from '../../errors.js';
import type { PlayerClient } from './client-table.js';
import { InnertubeStatusError } from './innertube.js';
import type { Playability, PlayerInfo } from './player.js';

/**
 * What a walk is for. Each keeps its own memory: the clients that serve differ (media needs plain
 * stream URLs, which the clients that take cookies do not hand out).
 */
export type ChainUse = 'captions' | 'metadata' | 'media';

/** Thrown by an attempt: this client cannot serve, the walk asks the next one. */
export class NextClient extends Error {
  /**
   * `reason`: what to answer if no client serves (null: nothing to say). `remember`: whether the
   * client that serves after this one should be asked first next time (false for what is particular
   * to this video or track, e.g. one caption track gated while the others are not).
   */
  constructor(
    readonly reason: AppError | null,
    readonly remember = true,
  ) {
    super(reason?.message ?? 'this client could not serve');
  }
}

/** Player states of the client asked rather than of the video: another client may well answer. */
const CLIENT_STATES: ReadonlySet<Playability> = new Set([
  'blocked',
  'login_required',
  'age_restricted',
  'members_only',
  'unplayable',
]);

/** Whether a player answer that cannot serve should send the walk to the next client. */
export const passesOn = (info: PlayerInfo): boolean => CLIENT_STATES.has(info.status);

/** How telling a reason is: a client that saw the video beats one that was refused or blocked. */
function rank(err: AppError): number {
  switch (err.code) {
    case 'transcript_unavailable':
      return 5;
    case 'forbidden':
      return 4;
    case 'not_found':
      return 3;
    case 'upstream_error':
      return err instanceof InnertubeStatusError && err.httpStatus < 500 ? 1 : 2;
    default:
      return 0;
  }
}

export class PlayerChain {
  private readonly lately = new Map<ChainUse, string>();

  constructor(readonly clients: readonly PlayerClient[]) {
    if (clients.length === 0) throw new Error('a player chain needs at least one client');
  }

  /** The clients in the order a walk for `use` asks them now. */
  order(use: ChainUse): PlayerClient[] {
    const first = this.clients.find((c) => c.name === this.lately.get(use));
    return first ? [first, ...this.clients.filter((c) => c !== first)] : [...this.clients];
  }

  /**
   * `attempt` with each client in turn: its value ends the walk. It throws NextClient to pass to the
   * next client; an upstream_error (a refusal, a block left after retries) passes on too; any other
   * error ends the walk at once (the video's own state, the same for every client).
   */
  async walk<T>(use: ChainUse, attempt: (client: PlayerClient) => Promise<T>): Promise<T> {
    let best: AppError | null = null;
    let turnedAway = false;
    for (const client of this.order(use)) {
      try {
        const value = await attempt(client);
        if (turnedAway) this.lately.set(use, client.name);
        return value;
      } catch (err) {
        let reason: AppError | null;
        if (err instanceof NextClient) {
          reason = err.reason;
          turnedAway ||= err.remember;
        } else if (err instanceof AppError && err.code === 'upstream_error') {
          reason = err;
          turnedAway = true;
        } else {
          throw err;
        }
        if (reason && (!best || rank(reason) > rank(best))) best = reason;
      }
    }
    throw best ?? new AppError('upstream_error', 'youtube answered no player');
  }
}
