// Runs the built `unfurl` binary (dist/main/cli.js) as a real child process. The build is what
// `npm test` makes in its `pretest` step; when dist is missing or older than src (a direct
// `npx vitest run …` after editing), it is rebuilt first so the process never runs stale code.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/main/cli.js');

function newestMtime(dir: string, ext: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p, ext));
    else if (entry.name.endsWith(ext)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** True when some file under src/ is newer than the built CLI (or there is no build). */
export function distIsStale(): boolean {
  if (!fs.existsSync(CLI)) return true;
  return newestMtime(path.join(ROOT, 'src'), '.ts') > fs.statSync(CLI).mtimeMs;
}

/** Builds dist/ with the project's build configuration when it is stale. */
export async function ensureBuilt(): Promise<void> {
  if (!distIsStale()) return;
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      { cwd: ROOT, timeout: 120_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`build failed:\n${stdout}${stderr}`)) : resolve()),
    );
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/main/cli.js …args` with exactly `env` (plus PATH), never the test's own env. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
