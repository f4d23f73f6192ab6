// A claim in README is a test: its "Python client" section runs as written — the shell block builds
// the wheel, makes the virtual environment and pip-installs the wheel into it, then the Python block
// prints a transcript from a real server. The only changes: the server's own address in
// UNFURL_API_URL, and `python3` on PATH is the one with Debian's httpx (as on a Debian machine).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonWith } from '../../scripts/python.js';
import { type ClientTestServer, startClientTestServer } from '../sdk/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const python = pythonWith(['httpx', 'venv', 'ensurepip', 'build', 'setuptools', 'wheel']);
if (!python && process.env.CI === 'true') {
  throw new Error(
    "README's Python client test needs python3 with httpx, venv and build (Debian python3-httpx python3-venv python3-build)",
  );
}

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

const block = (md: string, lang: string) => {
  const m = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(md);
  if (!m) throw new Error(`no \`\`\`${lang} block`);
  return m[1]!;
};

let s: ClientTestServer;
let key: string;
let bin: string;

describe.skipIf(!python)("README's Python client", () => {
  beforeAll(async () => {
    s = await startClientTestServer();
    key = (await s.t.register()).apiKey;
    // The block makes .venv in the repository, as a reader would: a fresh one each run.
    fs.rmSync(path.join(root, '.venv'), { recursive: true, force: true });
    bin = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-python-bin-'));
    fs.symlinkSync(python!, path.join(bin, 'python3'));
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(bin, { recursive: true, force: true });
    fs.rmSync(path.join(root, '.venv'), { recursive: true, force: true });
  });

  it('installs the wheel and prints a transcript in under 10 lines', async () => {
    const md = section('Python client');
    const shell = block(md, 'sh');
    const code = block(md, 'python');
    const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
    // From `pip install` to the printed text.
    const fromPip = lines(shell).slice(lines(shell).findIndex((l) => l.startsWith('pip install')));
    expect(fromPip.length + lines(code).length).toBeLessThan(10);

    const api = /export UNFURL_API_URL=(\S+)/.exec(shell);
    expect(api?.[1]).toBe('http://127.0.0.1:8080');
    const script = `set -euo pipefail\n${shell.replace(api![1]!, s.url)}\npython3 - <<'PY'\n${code}PY\n`;
    const {
      code: exit,
      stdout,
      stderr,
    } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'bash',
        ['-c', script],
        {
          cwd: root,
          env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, KEY: key, PIP_NO_INDEX: '1' },
          timeout: 180_000,
        },
        (err, out, errOut) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout: out, stderr: errOut }),
      ),
    );
    expect(exit, `${stdout}\n${stderr}`).toBe(0);
    // The transcript the server gives for that video, as text.
    const res = await fetch(
      `${s.url}/v1/transcript?url=https://www.youtube.com/watch?v=GJLlxj_dtq8&text=true`,
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    const { content } = (await res.json()) as { content: string };
    expect(content.length).toBeGreaterThan(100);
    // The last thing printed (after npm's and pip's own lines) is the transcript.
    expect(stdout.trimEnd().endsWith(content.trim()), stdout).toBe(true);
    // The wheel pip installed is what ran.
    expect(stdout + stderr).not.toMatch(/Traceback/);
    const installed = fs
      .readdirSync(path.join(root, '.venv/lib'))
      .flatMap((v) => fs.readdirSync(path.join(root, '.venv/lib', v, 'site-packages')));
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(installed).toContain(`unfurl-${version}.dist-info`);
  }, 240_000);
});
