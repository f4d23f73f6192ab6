// Files a request or a job produced (screenshots, …). They live where job results live, in the
// database (no object store), and are served to their owner only, by GET /v1/files/{id}, until they
// expire; the sweeper then deletes them (`expireFiles`). A file's id is its only name and cannot be
// guessed; even so the route answers it to the account that owns it alone.
import { AppError } from '../errors.js';
import { randomBase62 } from '../ids.js';
import type { Db } from '../store/db.js';

/** The largest file kept (a full-page screenshot stays well under it). */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * The types a file may have, with the extension its download is named with. Only types a browser
 * does not run as a page of ours (no HTML, no SVG): the answer is served inline from the API's origin.
 */
export const FILE_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
} as const;

export type FileContentType = keyof typeof FILE_TYPES;

export interface NewFile {
  accountId: string;
  contentType: FileContentType;
  data: Uint8Array;
  /** When it stops being served (Unix ms); the store's default lifetime from now when left out. */
  expiresAt?: number;
  /** The job that produced it, if a job did. */
  jobId?: string | null;
}

/** A stored file as its owner is told of it: where to fetch it, and until when. */
export interface StoredFile {
  id: string;
  /** `${publicUrl}/v1/files/${id}`: answered with the owner's API key until `expiresAt`. */
  url: string;
  contentType: FileContentType;
  bytes: number;
  expiresAt: number;
}

/** A file's content, for its owner. */
export interface FileContent {
  contentType: FileContentType;
  data: Buffer;
  expiresAt: number;
}

/** A file's id: `file_`, its creation time (so new rows land at the end of the index), 142 random bits. */
export function newFileId(now = Date.now()): string {
  return `file_${now.toString(36).padStart(9, '0')}${randomBase62(24)}`;
}

/** The name a file is downloaded under: its id and its type's extension. */
export function fileName(id: string, contentType: string): string {
  const ext = (FILE_TYPES as Record<string, string>)[contentType] ?? 'bin';
  return `${id}.${ext}`;
}

const asBuffer = (data: Uint8Array): Buffer =>
  Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/**
 * Deletes files past their expiry, `batch` rows per statement and at most `maxBatches` statements per
 * call (the sweeper's next run takes the rest), so that no statement grows with a backlog. Answers how
 * many were deleted.
 */
export async function expireFiles(db: Db, now: number, batch = 100, maxBatches = 50): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < maxBatches; i++) {
    const r = await db
      .deleteFrom('files')
      .where('id', 'in', (eb) =>
        eb.selectFrom('files').select('id').where('expires_at', '<=', now).orderBy('expires_at').limit(batch),
      )
      .executeTakeFirst();
    const n = Number(r.numDeletedRows);
    deleted += n;
    if (n < batch) break;
  }
  return deleted;
}

export class FileStore {
  /**
   * The time written into the last id this store made: the next one's is later, even within the same
   * millisecond, so that a job's files sort by id in the order they were made (forJob).
   */
  private lastIdMs = 0;

  constructor(
    private readonly db: Db,
    private readonly settings: {
      /** The server's own address, which file URLs start with. */
      publicUrl: string;
      /** A file's lifetime when `put` is not given its expiry (the job results' by default). */
      ttlMs: number;
    },
  ) {}

  /** Stores a file for its account; 413 `payload_too_large` past MAX_FILE_BYTES. */
  async put(file: NewFile): Promise<StoredFile> {
    const ext = (FILE_TYPES as Record<string, string | undefined>)[file.contentType];
    if (!ext) throw new AppError('internal_error', `Files of type ${file.contentType} are not stored`);
    const data = asBuffer(file.data);
    if (data.byteLength > MAX_FILE_BYTES) {
      throw new AppError(
        'payload_too_large',
        `The file is ${data.byteLength} bytes; at most ${MAX_FILE_BYTES} are kept`,
        null,
        { retryable: false },
      );
    }
    const now = Date.now();
    this.lastIdMs = Math.max(now, this.lastIdMs + 1);
    const id = newFileId(this.lastIdMs);
    const expiresAt = file.expiresAt ?? now + this.settings.ttlMs;
    await this.db
      .insertInto('files')
      .values({
        id,
        account_id: file.accountId,
        job_id: file.jobId ?? null,
        content_type: file.contentType,
        bytes: data.byteLength,
        data,
        created_at: now,
        expires_at: expiresAt,
      })
      .execute();
    return this.described({ id, contentType: file.contentType, bytes: data.byteLength, expiresAt });
  }

  /** The file's content for `accountId`; null when it does not exist, is another account's, or has expired. */
  async get(id: string, accountId: string, now = Date.now()): Promise<FileContent | null> {
    const row = await this.db
      .selectFrom('files')
      .select(['content_type', 'data', 'expires_at'])
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return null;
    return {
      contentType: row.content_type as FileContentType,
      data: asBuffer(row.data),
      expiresAt: Number(row.expires_at),
    };
  }

  /** The unexpired files a job produced, oldest first (without their bytes). */
  async forJob(jobId: string, now = Date.now()): Promise<StoredFile[]> {
    const rows = await this.db
      .selectFrom('files')
      .select(['id', 'content_type', 'bytes', 'expires_at'])
      .where('job_id', '=', jobId)
      .where('expires_at', '>', now)
      .orderBy('id')
      .execute();
    return rows.map((r) =>
      this.described({
        id: r.id,
        contentType: r.content_type as FileContentType,
        bytes: Number(r.bytes),
        expiresAt: Number(r.expires_at),
      }),
    );
  }

  /** Deletes expired files in bounded batches (see `expireFiles`); the sweeper calls that directly. */
  expire(now = Date.now()): Promise<number> {
    return expireFiles(this.db, now);
  }

  private described(f: Omit<StoredFile, 'url'>): StoredFile {
    return { ...f, url: `${this.settings.publicUrl}/v1/files/${f.id}` };
  }
}
