// Scratch space for media work: one directory per job under <data dir>/scratch, removed when the
// work ends (also on failure), and left-overs of a crashed process swept at start.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

export class Scratch {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'scratch');
  }

  /** Runs `work` with a fresh directory of its own and removes the directory afterwards. */
  async with<T>(name: string, work: (dir: string) => Promise<T>): Promise<T> {
    const safe = name.replace(/[^A-Za-z0-9_-]/g, '_');
    const dir = path.join(this.root, `${safe}-${process.pid}-${Date.now().toString(36)}`);
    await mkdir(dir, { recursive: true });
    try {
      return await work(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Removes directories older than `maxAgeMs` (a process killed mid-job leaves its own behind). */
  async sweep(maxAgeMs: number): Promise<number> {
    let removed = 0;
    const entries = await readdir(this.root).catch(() => [] as string[]);
    for (const entry of entries) {
      const dir = path.join(this.root, entry);
      const info = await stat(dir).catch(() => null);
      if (info && Date.now() - info.mtimeMs > maxAgeMs) {
        await rm(dir, { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }
}
