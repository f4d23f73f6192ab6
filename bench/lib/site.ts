// Child process of the web benchmarks: serves pages on a loopback port, off the event loop and CPU
// of the crawler or client being measured, and sends its address to the parent over IPC.
//   site <pages>   a synthetic site of <pages> HTML pages (/ and /p/1 … /p/<pages-1>), each 15–30 KB
//                  with head, header, nav, an article of several paragraphs, a list of ~20 links to
//                  other pages of the site, and a footer; every page is reachable from / within
//                  3 hops (page i links to 20i+1 … 20i+20). Plus /robots.txt, which disallows a
//                  path no page links to (so every crawler has the same work).
//   file <path>    one file (an HTML fixture) at /page.html
// Pages are built once at start; answers are plain (no compression), keep-alive.
import fs from 'node:fs';
import http from 'node:http';

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have ' +
  'an they you were her she there been one all we their has would when if so no will more can about ' +
  'market city council report water energy school data study research budget policy river season ' +
  'museum library train station harbour village mountain forest garden festival century archive ' +
  'engineer teacher doctor farmer writer painter musician player coach mayor minister committee ' +
  'announced reported described measured released published discovered expected increased reduced ' +
  'quickly slowly carefully recently finally nearly widely largely openly quietly'
).split(' ');

/** A small deterministic PRNG (mulberry32), so the site is the same in every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pageUrl = (i: number) => (i === 0 ? '/' : `/p/${i}`);

function sentence(r: () => number): string {
  const n = 8 + Math.floor(r() * 14);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]!);
  const s = words.join(' ');
  return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
}

const paragraph = (r: () => number, sentences: number) =>
  Array.from({ length: sentences }, () => sentence(r)).join(' ');

const title = (r: () => number) => sentence(r).slice(0, -1).split(' ').slice(0, 7).join(' ');

export function sitePage(i: number, pages: number): string {
  const r = rng(i + 1);
  const links = new Set<number>();
  for (let k = 1; k <= 20 && 20 * i + k < pages; k++) links.add(20 * i + k);
  while (links.size < 20) {
    const j = Math.floor(r() * pages);
    if (j !== i) links.add(j);
  }
  const nav = [0, 1, 2, 3, 4, 5, 6]
    .filter((j) => j < pages)
    .map((j) => `<li><a href="${pageUrl(j)}" class="nav-link">Section ${j}</a></li>`)
    .join('');
  const related = [...links]
    .map(
      (j) =>
        `<li class="card"><a href="${pageUrl(j)}">${title(rng(j + 7))}</a> <span class="meta">${2 + (j % 9)} min read</span></li>`,
    )
    .join('\n');
  const paragraphs = 5 + Math.floor(r() * 8);
  const body: string[] = [];
  for (let p = 0; p < paragraphs; p++) {
    if (p === 2) body.push(`<h2>${title(r)}</h2>`);
    if (p === 4) body.push(`<blockquote><p>${paragraph(r, 2)}</p></blockquote>`);
    if (p === 5) body.push(`<ul>${Array.from({ length: 4 }, () => `<li>${sentence(r)}</li>`).join('')}</ul>`);
    body.push(`<p>${paragraph(r, 4 + Math.floor(r() * 4))}</p>`);
  }
  const t = title(r);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>${t} — Bench Gazette</title>
<meta name="description" content="${sentence(r)}">
<meta property="og:title" content="${t}"><meta property="og:url" content="${pageUrl(i)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/static/site.css">
<style>${'.c{margin:0 auto;max-width:72rem;padding:0 1rem}.nav-link{color:#123;text-decoration:none}.card{display:flex;gap:.5rem}\n'.repeat(72)}</style>
<script>window.__STATE__=${JSON.stringify({ page: i, tags: Array.from({ length: 30 }, () => title(r)) })}</script>
</head><body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header c"><a href="/" class="logo">Bench Gazette</a>
<nav aria-label="Main"><ul>${nav}</ul></nav>
<form action="/search" role="search"><input name="q" placeholder="Search"><button>Go</button></form></header>
<main id="main" class="c"><article>
<h1>${t}</h1>
<p class="byline">By <a href="${pageUrl((i * 7 + 3) % pages)}">${title(r).split(' ').slice(0, 2).join(' ')}</a> · <time datetime="2025-01-0${1 + (i % 9)}">January ${1 + (i % 9)}, 2025</time></p>
<figure><img src="/img/${i}.jpg" alt="${title(r)}" width="800" height="450"><figcaption>${sentence(r)}</figcaption></figure>
${body.join('\n')}
</article>
<aside class="related"><h2>Related</h2><ul>
${related}
</ul></aside></main>
<footer class="site-footer c"><ul>
<li><a href="${pageUrl(Math.min(7, pages - 1))}">About</a></li><li><a href="${pageUrl(Math.min(8, pages - 1))}">Contact</a></li>
<li><a href="https://example.org/elsewhere">Elsewhere</a></li><li><a href="#main">Back to top</a></li>
</ul><p>${paragraph(r, 2)}</p><p>© 2025 Bench Gazette</p></footer>
<script>${'(function(){var d=document;d.documentElement.className+=" js";})();\n'.repeat(20)}</script>
</body></html>
`;
}

export const ROBOTS_TXT = 'User-agent: *\nDisallow: /admin/\n\nUser-agent: UnfurlBot\nDisallow: /admin/\n';

function routes(mode: string, arg: string): Map<string, { body: Buffer; type: string }> {
  const map = new Map<string, { body: Buffer; type: string }>();
  const html = 'text/html; charset=utf-8';
  if (mode === 'site') {
    const pages = Number(arg);
    for (let i = 0; i < pages; i++)
      map.set(pageUrl(i), { body: Buffer.from(sitePage(i, pages)), type: html });
    map.set('/robots.txt', { body: Buffer.from(ROBOTS_TXT), type: 'text/plain; charset=utf-8' });
  } else if (mode === 'file') {
    map.set('/page.html', { body: fs.readFileSync(arg), type: html });
  } else {
    throw new Error(`unknown mode "${mode}"`);
  }
  return map;
}

if (process.send) {
  const [mode = '', arg = ''] = process.argv.slice(2);
  const map = routes(mode, arg);
  const server = http.createServer((req, res) => {
    // The query is not part of a page's name: /p/1?v=2 is /p/1 (a fresh URL for a cache, the same page).
    const hit = map.get((req.url ?? '').split('?')[0]!);
    if (!hit) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': hit.type, 'content-length': hit.body.length }).end(hit.body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    process.send!({ address: `http://127.0.0.1:${addr.port}` });
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    // A parent that died leaves a browser's connections opening again: do not outlive it.
    setTimeout(() => process.exit(0), 1000);
  };
  process.on('message', (m) => m === 'stop' && stop());
  process.on('disconnect', stop);
}
