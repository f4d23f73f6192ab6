// Crawled pages as files: names from URL paths, queries and other hosts kept apart, twins numbered,
// and nothing a site sends can name a file outside the output folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PageWriter, pageFileName, pageMarkdown } from '../../src/main/client/page-files.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const page = (url: string, content = 'Body') => ({
  url,
  content,
  name: 'Title "quoted"',
  description: null,
  ogUrl: null,
  countCharacters: content.length,
  urls: [],
});

describe('pageFileName', () => {
  it('maps paths to Markdown files', () => {
    expect(pageFileName('https://a.example/', 'a.example')).toBe('index.md');
    expect(pageFileName('https://a.example/docs/', 'a.example')).toBe('docs/index.md');
    expect(pageFileName('https://a.example/docs/intro', 'a.example')).toBe('docs/intro.md');
    expect(pageFileName('https://a.example/about.html', 'a.example')).toBe('about.md');
    expect(pageFileName('https://a.example/caf%C3%A9 menu', 'a.example')).toBe('caf_menu.md');
  });

  it('keeps queries and other hosts apart', () => {
    const a = pageFileName('https://a.example/list?page=2', 'a.example');
    const b = pageFileName('https://a.example/list?page=3', 'a.example');
    expect(a).toMatch(/^list_[0-9a-f]{8}\.md$/);
    expect(a).not.toBe(b);
    expect(pageFileName('https://blog.a.example/post', 'a.example')).toBe('blog.a.example/post.md');
  });

  it('never leaves the folder, whatever the path says', () => {
    for (const url of [
      'https://a.example/%2e%2e/%2e%2e/etc/passwd',
      'https://a.example/..%2f..%2fetc/passwd',
      'https://a.example/.hidden',
    ]) {
      const name = pageFileName(url, 'a.example');
      expect(
        name.split('/').some((seg) => seg.startsWith('.')),
        `${url} → ${name}`,
      ).toBe(false);
    }
  });
});

describe('PageWriter', () => {
  it('writes front matter and content, numbering twins', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-pages-'));
    dirs.push(dir);
    const w = new PageWriter(dir, 'a.example');
    expect(w.write(page('https://a.example/x'))).toBe('x.md');
    expect(w.write(page('https://a.example/x.html'))).toBe('x-2.md');
    expect(w.write(page('https://a.example/x.htm'))).toBe('x-3.md');
    expect(fs.readFileSync(path.join(dir, 'x.md'), 'utf8')).toBe(
      '---\nurl: "https://a.example/x"\ntitle: "Title \\"quoted\\""\ndescription: null\n---\n\nBody\n',
    );
    expect(pageMarkdown(page('https://a.example/y', 'ends\n'))).toMatch(/\n\nends\n$/);
    expect(w.files).toEqual(['x.md', 'x-2.md', 'x-3.md']);
  });
});
