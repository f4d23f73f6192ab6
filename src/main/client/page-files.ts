// Crawled pages as Markdown files: the URL path becomes the file path under the output folder
// (`/` → index.md, `/docs/a` → docs/a.md), other hosts go in a folder of their own, and every name
// is cleaned so that nothing a site sends can write outside the folder.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ScrapedPage } from '@unfurl/sdk';

const clean = (segment: string) => {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Kept as sent.
  }
  const s = decoded
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 100);
  return s || '_';
};

/** The file (relative to the output folder) for a page of a crawl that started at `startHost`. */
export function pageFileName(pageUrl: string, startHost: string): string {
  const url = new URL(pageUrl);
  const parts = url.pathname.split('/').filter(Boolean).map(clean);
  if (url.pathname.endsWith('/') || parts.length === 0) parts.push('index');
  let last = parts.pop()!.replace(/\.(html?|php|aspx?)$/i, '');
  // Different queries of one path are different pages: a short hash keeps them apart.
  if (url.search) last += `_${createHash('sha256').update(url.search).digest('hex').slice(0, 8)}`;
  parts.push(`${last}.md`);
  if (url.host !== startHost) parts.unshift(clean(url.host));
  return parts.join('/');
}

const yamlString = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));

export function pageMarkdown(page: ScrapedPage): string {
  return [
    '---',
    `url: ${yamlString(page.url)}`,
    `title: ${yamlString(page.name)}`,
    `description: ${yamlString(page.description)}`,
    '---',
    '',
    page.content.endsWith('\n') ? page.content : `${page.content}\n`,
  ].join('\n');
}

/** Writes pages under `dir`, never outside it and never one file twice (a later twin gets -2, -3 …). */
export class PageWriter {
  private readonly used = new Set<string>();
  readonly files: string[] = [];
  constructor(
    readonly dir: string,
    private readonly startHost: string,
  ) {
    fs.mkdirSync(dir, { recursive: true });
  }

  write(page: ScrapedPage): string {
    let rel = pageFileName(page.url, this.startHost);
    for (let n = 2; this.used.has(rel); n++) rel = rel.replace(/(-\d+)?\.md$/, `-${n}.md`);
    this.used.add(rel);
    const file = path.resolve(this.dir, rel);
    if (!file.startsWith(path.resolve(this.dir) + path.sep)) throw new Error(`refusing to write ${file}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, pageMarkdown(page));
    this.files.push(rel);
    return rel;
  }
}
