// Builds the Python SDK's wheel with Debian's own tools (python3-build, python3-setuptools,
// python3-wheel; the package index is not needed): `python3 -m build --wheel --no-isolation` on a
// copy of packages/python, so the source folder stays clean. The wheel's version is the server's.
//
//   npm run build:python   writes packages/python/dist/unfurl-<version>-py3-none-any.whl
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pythonWith } from './python.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the wheel into `outDir` and answers its path. */
export function buildWheel(outDir: string): string {
  const python = pythonWith(['build', 'setuptools', 'wheel']);
  if (!python) throw new Error('building the wheel needs python3 with build, setuptools and wheel (Debian python3-build)');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-wheel-'));
  try {
    const source = path.join(work, 'python');
    fs.cpSync(path.join(root, 'packages/python'), source, {
      recursive: true,
      filter: (from) => !/(__pycache__|\.egg-info|[\\/]build|[\\/]dist|[\\/]tests)$/.test(from),
    });
    fs.mkdirSync(outDir, { recursive: true });
    execFileSync(python, ['-m', 'build', '--wheel', '--no-isolation', '--outdir', outDir, source], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const wheel = path.join(outDir, `unfurl-${version}-py3-none-any.whl`);
  if (!fs.existsSync(wheel)) throw new Error(`the build wrote no ${path.basename(wheel)} into ${outDir}`);
  return wheel;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  console.log(buildWheel(path.join(root, 'packages/python/dist')));
}
