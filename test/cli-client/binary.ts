// The real `unfurl` binary for client tests: dist/main/cli.js over packages/sdk/dist, rebuilt first
// when either is missing or older than its sources (a direct `npx vitest run` after an edit). A build
// takes a minute or more on a busy machine: the suites give their beforeAll hooks 5 minutes.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI, ROOT } from '../support/cli.js';

const SDK_ENTRY = path.join(ROOT, 'packages/sdk/dist/index.js');

function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (e.name.endsWith('.ts')) t = Math.max(t, fs.statSync(p).mtimeMs);
  }
  return t;
}

const older = (file: string, sources: string) =>
  !fs.existsSync(file) || fs.statSync(file).mtimeMs < newest(path.join(ROOT, sources));

function tsc(project: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project],
      { cwd: ROOT, timeout: 180_000 },
      (err, stdout, stderr) => {
        // tsc still emits on type errors. In a tree others are editing, only errors in the client's
        // own sources (or no output at all) stop these tests.
        const text = `${stdout}${stderr}`;
        const ours = /^(src\/main\/cli\.ts|src\/main\/client\/|packages\/sdk\/)/m.test(text);
        if (err && (ours || !fs.existsSync(CLI) || !fs.existsSync(SDK_ENTRY))) {
          reject(new Error(`tsc -p ${project} failed:\n${text}`));
        } else resolve();
      },
    );
  });
}

const LOCK = path.join(
  os.tmpdir(),
  `unfurl-client-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`,
);

/** One build at a time across test files running in parallel (mkdir is atomic); a stale lock is taken over. */
async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch {
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

export async function ensureClientBuilt(): Promise<void> {
  if (!older(SDK_ENTRY, 'packages/sdk/src') && !older(CLI, 'src')) return;
  await withBuildLock(async () => {
    // Checked again: another test file may have built while this one waited.
    const sdkStale = older(SDK_ENTRY, 'packages/sdk/src');
    if (sdkStale) await tsc('packages/sdk/tsconfig.json');
    if (sdkStale || older(CLI, 'src')) await tsc('tsconfig.build.json');
  });
}
