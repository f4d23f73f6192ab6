// The docs' links lead somewhere: every link of /docs (Swagger UI's page, its script's spec URL and the
// Markdown of /openapi.json's descriptions), of /docs/reference, and of README and the guide that points
// at a running server (http://127.0.0.1:8080/…) answers 2xx or 3xx on a fresh app, and every #anchor
// names an element of the page it points into. A page mentioned where a reader wants to go is a link.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The address the app calls itself by in tests (UNFURL_PUBLIC_URL) and README's server address. */
const ORIGIN = 'http://127.0.0.1:8080';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => closeTestApp(t));

const get = (url: string) => t.call(null, { method: 'GET', url, headers: { accept: 'text/html,*/*' } });

/** The href and src values of an HTML page. */
const htmlLinks = (html: string) =>
  [...html.matchAll(/\b(?:href|src)="([^"]*)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

/** The targets of Markdown links `[text](target)`. */
const markdownLinks = (md: string) => [...md.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);

/** The ids (and names) of a page's elements. */
const anchorsOf = (html: string) => new Set([...html.matchAll(/\b(?:id|name)="([^"]+)"/g)].map((m) => m[1]!));

/**
 * Checks one link found on `page` (a URL of the app): an outside link is left alone; a link into the app
 * answers 2xx or 3xx, and its #fragment is an element of the page it lands on. Answers what is wrong.
 */
async function check(link: string, page: string): Promise<string | null> {
  const target = new URL(link, new URL(page, ORIGIN));
  if (target.origin !== ORIGIN) return null;
  const where = `${target.pathname}${target.search}`;
  let res = await get(where);
  if (res.statusCode >= 300 && res.statusCode < 400 && typeof res.headers.location === 'string') {
    res = await get(new URL(res.headers.location, target).pathname);
  }
  if (res.statusCode >= 400) return `${link} (on ${page}) answers ${res.statusCode}`;
  const fragment = decodeURIComponent(target.hash.slice(1));
  // Swagger UI's own deep links (#/Web/scrape) are its script's routes, not elements.
  if (fragment && !fragment.startsWith('/') && !anchorsOf(res.body).has(fragment)) {
    return `${link} (on ${page}): no element #${fragment} on ${target.pathname}`;
  }
  return null;
}

async function checkAll(links: string[], page: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const link of new Set(links)) {
    const problem = await check(link, page);
    if (problem) wrong.push(problem);
  }
  return wrong;
}

describe('/docs links', () => {
  it('/docs and /docs/: every stylesheet, script, icon and link of the page answers', async () => {
    for (const page of ['/docs', '/docs/']) {
      const res = await get(page);
      expect(res.statusCode).toBe(200);
      const links = htmlLinks(res.body);
      expect(links.length).toBeGreaterThan(4);
      expect(await checkAll(links, page)).toEqual([]);
    }
  });

  it("Swagger UI's initializer loads a spec that answers", async () => {
    const res = await get('/docs/static/swagger-initializer.js');
    expect(res.statusCode).toBe(200);
    // resolveUrl('./json'): relative to the page's own address, which ends in a slash.
    const urls = [...res.body.matchAll(/\bresolveUrl\(["']([^"']+)["']\)/g)].map((m) => m[1]!);
    expect(urls).toContain('./json');
    expect(await checkAll(urls, '/docs/')).toEqual([]);
  });

  it("/openapi.json's descriptions: every Markdown link answers, and /docs/reference is always a link", async () => {
    const doc = (await get('/openapi.json')).json() as {
      info: { description: string };
      tags?: Array<{ description?: string }>;
      paths: Record<string, Record<string, { description?: string; summary?: string }>>;
    };
    const texts = [
      doc.info.description,
      ...(doc.tags ?? []).map((tag) => tag.description ?? ''),
      ...Object.values(doc.paths).flatMap((ops) =>
        Object.values(ops).flatMap((op) => [op.description ?? '', op.summary ?? '']),
      ),
    ];
    const links = texts.flatMap(markdownLinks);
    expect(links).toEqual(expect.arrayContaining(['/docs/reference', '/docs/reference#prices']));
    expect(await checkAll(links, '/docs')).toEqual([]);
    for (const text of texts) {
      // A mention outside a link's target, e.g. "see /docs/reference#prices" as plain text.
      const bare = text.replace(/\]\([^)]*\)/g, '](…)');
      expect(bare, 'a /docs/reference page mentioned but not linked').not.toMatch(/(?<!`)\/docs\/reference#/);
    }
  });

  it('/docs/reference: every link answers and every #anchor is there', async () => {
    const res = await get('/docs/reference');
    expect(res.statusCode).toBe(200);
    const links = htmlLinks(res.body);
    expect(links).toEqual(expect.arrayContaining(['#prices', '#errors', '/docs', '/openapi.json']));
    expect(await checkAll(links, '/docs/reference')).toEqual([]);
  });

  it('/docs/reference is ordered as a user meets the API: prices first, errors last', async () => {
    const html = (await get('/docs/reference')).body;
    const at = (id: string) => html.indexOf(`<h2 id="${id}"`);
    expect(at('prices')).toBeGreaterThan(0);
    expect([at('prices'), at('packages'), at('rate-limits'), at('errors')]).toEqual(
      [at('prices'), at('packages'), at('rate-limits'), at('errors')].sort((a, b) => a - b),
    );
  });

  it("/docs groups the API's own operations first and the account's plumbing last", async () => {
    const doc = (await get('/openapi.json')).json() as { tags: Array<{ name: string }> };
    const names = doc.tags.map((tag) => tag.name);
    expect(names.slice(0, 2)).toEqual(['Web', 'Videos']);
    expect(names.indexOf('Accounts')).toBeGreaterThan(names.indexOf('Jobs'));
    expect(names.indexOf('Accounts')).toBeGreaterThan(names.indexOf('Credits'));
  });
});

describe("README's and the guide's links to a running server", () => {
  for (const file of ['README.md', 'docs/guide.md']) {
    it(`${file}: links to ${ORIGIN} answer, and /docs/reference#… is a link where it is named`, async () => {
      const md = fs.readFileSync(path.join(root, file), 'utf8');
      const links = markdownLinks(md).filter((l) => l.startsWith(`${ORIGIN}/`));
      expect(await checkAll(links, '/')).toEqual([]);
      // Outside code blocks, `/docs/reference#prices` in backquotes is the text of a link, not alone.
      const prose = md.replace(/```[\s\S]*?```/g, '');
      for (const m of prose.matchAll(/`\/docs\/reference#[a-z-]+`/g)) {
        const after = prose.slice(m.index + m[0].length, m.index + m[0].length + 2);
        const before = prose[m.index - 1];
        expect(`${before}${m[0]}${after}`, `${file}: ${m[0]} is not a link`).toMatch(/^\[`.*`\]\(/);
      }
    });
  }
});
