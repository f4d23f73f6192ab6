// The jobs table, under one name for its callers: the reads the API and the sweeper make
// (records/reads.ts) and the guarded state changes of accepting, running and ending jobs
// (records/transitions.ts), whose PostgreSQL hot path runs raw statements, each beside its Kysely
// twin (records/hot-statements.ts). Nothing here but the delegation.
import type { Db, Dialect, PgPools } from '../store/db.js';
import { JobReads } from './records/reads.js';
import { JobTransitions } from './records/transitions.js';

export type { Claim, EndedJob, FinishItem, JobOutcome } from './records/hot-statements.js';

export class JobRecords {
  private readonly reads: JobReads;
  private readonly transitions: JobTransitions;

  constructor(
    db: Db,
    /** For worker-side writes (see Store.workerDb). */
    workerDb: Db,
    readonly dialect: Dialect,
    /** PostgreSQL: the pools under `db` and `workerDb`, for prepared statements. */
    pools?: PgPools,
  ) {
    this.reads = new JobReads(db, dialect);
    this.transitions = new JobTransitions(db, workerDb, dialect, pools);
  }

  readonly get: JobReads['get'] = (...a) => this.reads.get(...a);
  readonly getForAccount: JobReads['getForAccount'] = (...a) => this.reads.getForAccount(...a);
  readonly list: JobReads['list'] = (...a) => this.reads.list(...a);
  readonly countsForGauges: JobReads['countsForGauges'] = () => this.reads.countsForGauges();
  readonly findLive: JobReads['findLive'] = (...a) => this.reads.findLive(...a);
  readonly expiredLeases: JobReads['expiredLeases'] = (...a) => this.reads.expiredLeases(...a);
  readonly overdueQueued: JobReads['overdueQueued'] = (...a) => this.reads.overdueQueued(...a);

  readonly insertMany: JobTransitions['insertMany'] = (...a) => this.transitions.insertMany(...a);
  readonly claimById: JobTransitions['claimById'] = (...a) => this.transitions.claimById(...a);
  readonly claimManyById: JobTransitions['claimManyById'] = (...a) => this.transitions.claimManyById(...a);
  readonly claimDue: JobTransitions['claimDue'] = (...a) => this.transitions.claimDue(...a);
  readonly heartbeat: JobTransitions['heartbeat'] = (...a) => this.transitions.heartbeat(...a);
  readonly finish: JobTransitions['finish'] = (...a) => this.transitions.finish(...a);
  readonly finishMany: JobTransitions['finishMany'] = (...a) => this.transitions.finishMany(...a);
  readonly failUnheld: JobTransitions['failUnheld'] = (...a) => this.transitions.failUnheld(...a);
  readonly cancelUnheld: JobTransitions['cancelUnheld'] = (...a) => this.transitions.cancelUnheld(...a);
  readonly requestCancel: JobTransitions['requestCancel'] = (...a) => this.transitions.requestCancel(...a);
  readonly cancelRequestedOf: JobTransitions['cancelRequestedOf'] = (...a) =>
    this.transitions.cancelRequestedOf(...a);
  readonly requeue: JobTransitions['requeue'] = (...a) => this.transitions.requeue(...a);
  readonly addHeld: JobTransitions['addHeld'] = (...a) => this.transitions.addHeld(...a);
  readonly requeueLost: JobTransitions['requeueLost'] = (...a) => this.transitions.requeueLost(...a);
  readonly expireResults: JobTransitions['expireResults'] = (...a) => this.transitions.expireResults(...a);
}
