// Whoever clones the repository can follow every reference in src/: no comment or string points to
// documents outside it (the design notes or research it was planned from, or ../shared), and every
// docs/decisions.md section a comment names by its heading exists.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/processes.js';

const SRC = path.join(repoRoot, 'src');
const OUTSIDE = /DESIGN(?:\.md| §)|\bresearch\/|\.\.\/shared\b/;

function files(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return files(full);
    return /\.(ts|js|css|html)$/.test(entry.name) ? [full] : [];
  });
}

/** `(docs/decisions.md, "Heading")`: the headings comments name. */
function namedSections(text: string): string[] {
  return [...text.matchAll(/docs\/decisions\.md, "([^"]+)"/g)].map((m) => m[1]!);
}

describe('src/ refers only to what is in the repository', () => {
  it('no reference to documents outside it', () => {
    const offending = files().flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          OUTSIDE.test(line) ? [`${path.relative(repoRoot, file)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(offending).toEqual([]);
  });

  it('every docs/decisions.md section a comment names exists (a heading starting with that text)', () => {
    const headings = fs
      .readFileSync(path.join(repoRoot, 'docs', 'decisions.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('## '))
      .map((l) => l.slice(3));
    const named = files().flatMap((file) => namedSections(fs.readFileSync(file, 'utf8')));
    expect(named.length).toBeGreaterThan(0);
    for (const name of named)
      expect(
        headings.some((h) => h.startsWith(name)),
        name,
      ).toBe(true);
  });

  it('the check sees a reference outside the repository', () => {
    expect(OUTSIDE.test('// see DESIGN §4')).toBe(true);
    expect(OUTSIDE.test('// ../shared/research/youtube.md')).toBe(true);
    expect(namedSections('(docs/decisions.md, "Nope")')).toEqual(['Nope']);
  });
});
