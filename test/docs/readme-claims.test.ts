// Claims of README and the guide that are about the code, checked against the code: what the dashboard's
// overview calls, the CLI step after registering with curl, and which URLs GET /v1/transcript takes.
// (The quick start's commands and answers are run for real in readme-quickstart.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const readme = read('README.md');
const guide = read('docs/guide.md');

/** The Markdown bullets of README's `## title` section, each joined onto one line. */
function bullets(title: string): string[] {
  const start = readme.indexOf(`\n## ${title}\n`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  return text
    .split(/\n(?=- )/)
    .filter((b) => b.startsWith('- '))
    .map((b) => b.replace(/\n\s+/g, ' '));
}

describe("README's dashboard section", () => {
  it('describes the overview once, naming the endpoints overview.js calls', () => {
    const overview = bullets('Dashboard').filter((b) => b.startsWith('- **Overview**'));
    expect(overview).toHaveLength(1);
    const named = [...overview[0]!.matchAll(/`GET (\/v1\/[a-z/]+)`/g)].map((m) => m[1]!);
    const source = read('src/http/dashboard/static/overview.js');
    const called = new Set([...source.matchAll(/call\('GET', '(\/v1\/[a-z/]+)'/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(0);
    for (const endpoint of named) expect(called, `README names ${endpoint}`).toContain(endpoint);
    // The chart comes from the summary: the one place that says so names it.
    expect(overview[0]).toMatch(/chart[^.]*`GET \/v1\/account\/usage\/summary`/);
  });
});

describe("README's quick start, then the CLI", () => {
  it('logs the account registered above in (a second register of it is a 409), not registers it again', () => {
    const quick = readme.slice(readme.indexOf('\n## Quick start\n'), readme.indexOf('\n## Deployments\n'));
    const email = /"email":"([^"]+)"/.exec(quick)?.[1];
    expect(email).toBe('ada@example.com');
    expect(quick).not.toContain(`unfurl register --email ${email}`);
    expect(quick).toContain(`unfurl login --email ${email}`);
  });
});

describe("the guide's API table", () => {
  it('GET /v1/transcript takes every source of the Videos table, media files included', () => {
    const row = guide.split('\n').find((l) => l.startsWith('| `GET /v1/transcript` |'));
    expect(row).toBeDefined();
    expect(row).not.toMatch(/for now/);
    // The sources of the table in the guide's Videos section (the first column of each row).
    const table = guide.slice(guide.indexOf('| source | URLs recognised |'));
    const rows = table.split('\n').slice(2);
    const sources = rows
      .slice(
        0,
        rows.findIndex((l) => !l.startsWith('| ')),
      )
      .map((l) => l.split('|')[1]!.trim());
    expect(sources).toHaveLength(6);
    for (const source of sources) {
      const word = source === 'direct file' ? 'media file' : source;
      expect(row, `the row names ${word}`).toContain(word);
    }
  });
});
