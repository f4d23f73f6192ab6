// The Python SDK is typed, and its types hold: mypy --strict finds nothing in the package (answers are
// the API's JSON, so returning them as the declared TypedDict is allowed: --no-warn-return-any), and
// a caller's misspelt keyword argument, wrong argument type or unknown answer key is an error mypy
// names.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pythonWith } from '../../scripts/python.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const python = pythonWith(['mypy', 'httpx']);
if (!python && process.env.CI === 'true') {
  throw new Error(
    'the Python SDK type check needs python3 with mypy and httpx (Debian python3-mypy python3-httpx)',
  );
}

function mypy(...targets: string[]): Promise<{ code: number; output: string }> {
  const args = [
    '-m',
    'mypy',
    '--strict',
    '--no-warn-return-any',
    '--enable-incomplete-feature=Unpack',
    '--no-error-summary',
    '--cache-dir',
    path.join(root, 'node_modules/.cache/mypy'),
    ...targets,
  ];
  return new Promise((resolve) =>
    execFile(
      python!,
      args,
      {
        cwd: path.join(root, 'packages/python'),
        env: { ...process.env, MYPYPATH: path.join(root, 'packages/python') },
        timeout: 120_000,
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    ),
  );
}

const CALLER = `from unfurl import Unfurl

with Unfurl() as client:
    accepted = client.web.crawl(url="https://example.com", max_depth=2)
    print(accepted["jobId"])
    client.web.crawl(url="https://example.com", max_dept=2)
    client.transcript(url="https://youtu.be/x", chunk_size="big")
    page = client.web.scrape(url="https://example.com")
    print(page["nmae"])
`;

describe.skipIf(!python)(`the Python SDK's types${python ? '' : ' — skipped: no python3 with mypy'}`, () => {
  it("pass mypy --strict, and catch a caller's mistakes", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-mypy-'));
    try {
      const file = path.join(dir, 'caller.py');
      fs.writeFileSync(file, CALLER);
      // One run over both (mypy's start-up is most of its time): the package itself has no error.
      const { code, output } = await mypy('unfurl', file);
      expect(code).toBe(1);
      // Errors only (mypy adds notes such as where a callee is defined), and none in the package.
      const errors = output.split('\n').filter((line) => line.includes(': error:'));
      expect(errors, output).toHaveLength(3);
      expect(errors[0]).toMatch(/caller\.py:6: error: Unexpected keyword argument "max_dept"/);
      expect(errors[1]).toMatch(
        /caller\.py:7: error: Argument "chunk_size" .* incompatible type "str"; expected "int"/,
      );
      expect(errors[2]).toMatch(/caller\.py:9: error: TypedDict "ScrapedPage" has no key "nmae"/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
