// Page-monitor comparison: noise (timestamps, tokens, rotating ads) must never read as a change, and a
// real edit must always do, with a diff and the section it sits in.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { comparePages, contentHash, learnVolatile, normalizeLine } from '../../src/monitors/page-diff.js';
import { parsePage } from '../../src/sources/web/page.js';

const WEB = path.resolve(import.meta.dirname, '../../../shared/fixtures/web');

function changedLines(diff: string, sign: '+' | '-'): string[] {
  return diff
    .split('\n')
    .filter((line) => line.startsWith(sign) && !line.startsWith(`${sign}${sign}${sign} `))
    .map((line) => line.slice(1));
}

// ---------------------------------------------------------------------------------------------------
// A synthetic page with every kind of flicker.

const AD_TEXTS = [
  'Sponsored: Fly to Lisbon with SkyJet, fares from 19 euros this week only.',
  'Sponsored: The new Orbit vacuum cleans under every sofa — order today.',
  'Sponsored: Learn Spanish in three months with Hablo, first lesson free.',
  'Sponsored: Garden hoses that never kink. Gardeners love them.',
  'Sponsored: Refinance your mortgage with Northbank and save on fees.',
  'Sponsored: Handmade leather boots, shipped from Porto in two days.',
  'Sponsored: Stream every match live with GoalPass premium.',
  'Sponsored: A mattress designed by sleep scientists, 100 nights trial.',
  'Sponsored: Fresh coffee beans roasted weekly and sent to your door.',
  'Sponsored: Book a cabin in the Alps for the winter holidays.',
];
const OLD_PRICE = 'The Pro plan costs 39 dollars per month and includes five seats and email support.';
const NEW_PRICE = 'The Pro plan costs 49 dollars per month and includes ten seats and phone support.';

function token(n: number): string {
  return createHash('sha256').update(`fetch-${n}`).digest('hex').slice(0, 24);
}

/** The page as served on its n-th fetch; `priced` chooses the real content of the Pricing paragraph. */
function renderPage(n: number, newPrice: boolean): string {
  const ad = (k: number) => AD_TEXTS[(n * 3 + k) % AD_TEXTS.length];
  const minute = String(10 + n).padStart(2, '0');
  return [
    '# Acme Widgets',
    '',
    `Updated ${n + 2} minutes ago · Built 2026-11-${10 + n}T09:${minute}:05Z`,
    '',
    'Acme makes sturdy widgets for workshops, schools and makerspaces since 1998.',
    '',
    `[Sign in](https://acme.test/login?token=${token(n)}&utm_source=nav) · [Docs](https://acme.test/docs?sid=${token(n + 100)})`,
    '',
    '## Features',
    '',
    'Every widget ships with a lifetime warranty and a printed manual.',
    '',
    '- Steel frame',
    '- Replaceable parts',
    '',
    `> ${ad(0)}`,
    '',
    'Our widgets are assembled by hand in a small workshop in Leeds.',
    '',
    'Each one is tested twice before it leaves the building.',
    '',
    '## Pricing',
    '',
    '### Pro plan',
    '',
    newPrice ? NEW_PRICE : OLD_PRICE,
    '',
    ad(1),
    '',
    'Annual billing gets two months free on every plan.',
    '',
    '### Team plan',
    '',
    'The Team plan is priced per seat; ask sales for a quote.',
    '',
    '## FAQ',
    '',
    'Can I return a widget? Yes, within 60 days, no questions asked.',
    '',
    'Do you ship abroad? We ship to 40 countries from our warehouse.',
    '',
    'How long does shipping take? Usually three to five working days.',
    '',
    `![Banner](https://cdn.acme.test/banner.png?cb=${token(n + 200)})`,
    '',
    `Page generated at ${minute}:05 pm on November ${n}, 2026 · csrf ${token(n + 300)}`,
  ].join('\n');
}

interface CheckResult {
  changed: boolean;
  diff: string;
  sections: Array<{ section: string; before: string[]; after: string[] }>;
}

/** The caller's procedure: a baseline of two fetches, then checks confirmed by a second fetch. */
function runMonitor(fetchPage: (check: number) => string, checks: number): CheckResult[] {
  const first = fetchPage(1);
  const volatile = new Set(learnVolatile([first, fetchPage(1)]));
  let previous = first;
  const results: CheckResult[] = [];
  for (let check = 2; check <= checks; check++) {
    const current = fetchPage(check);
    const cmp = comparePages(previous, current, volatile);
    if (!cmp.changed) {
      results.push(cmp);
      continue;
    }
    const confirm = fetchPage(check);
    for (const slot of learnVolatile([current, confirm])) volatile.add(slot);
    const cmp2 = comparePages(previous, confirm, volatile);
    results.push(cmp2);
    if (cmp2.changed) previous = confirm;
  }
  return results;
}

describe('monitoring a flickering page', () => {
  it('reports exactly the one real change, at check 4, with its section and no noise', () => {
    let fetches = 0;
    const fetchPage = (check: number) => renderPage(++fetches, check >= 4);
    const results = runMonitor(fetchPage, 5);
    expect(results.map((r) => r.changed)).toEqual([false, false, true, false]);

    const report = results[2]!;
    expect(changedLines(report.diff, '-')).toEqual([OLD_PRICE]);
    expect(changedLines(report.diff, '+')).toEqual([NEW_PRICE]);
    expect(report.diff.startsWith('--- before\n+++ after\n@@ -')).toBe(true);
    for (const ad of AD_TEXTS) expect(report.diff).not.toContain(ad);
    expect(report.diff).not.toMatch(/minutes ago|token=|csrf|cb=/);
    expect(report.sections).toEqual([
      { section: 'Acme Widgets › Pricing › Pro plan', before: [OLD_PRICE], after: [NEW_PRICE] },
    ]);
  });

  it('would report the ads without the learned volatile slots (the fixture really flickers)', () => {
    const a = renderPage(1, false);
    const b = renderPage(2, false);
    const raw = comparePages(a, b, []);
    expect(raw.changed).toBe(true);
    expect(changedLines(raw.diff, '+').some((line) => line.includes('Sponsored'))).toBe(true);
    // Timestamps and tokens alone are not changes: only the two ad blocks are.
    expect(raw.added).toBe(2);
    expect(raw.removed).toBe(2);
    expect(comparePages(a, b, learnVolatile([a, b])).changed).toBe(false);
  });

  it('still reports a real change right next to a volatile slot', () => {
    const a = renderPage(1, false);
    const volatile = learnVolatile([a, renderPage(2, false)]);
    const edited = renderPage(3, false).replace(
      'Our widgets are assembled by hand in a small workshop in Leeds.',
      'Our widgets are now assembled by robots in a factory in Leeds.',
    );
    const cmp = comparePages(a, edited, volatile);
    expect(cmp.changed).toBe(true);
    expect(changedLines(cmp.diff, '+')).toEqual([
      'Our widgets are now assembled by robots in a factory in Leeds.',
    ]);
    expect(cmp.sections.map((s) => s.section)).toEqual(['Acme Widgets › Features']);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('normalizeLine', () => {
  it.each([
    ['Built 2026-11-28T10:42:05Z', 'Built <date>'],
    ['Built 2026-11-28T10:42:05.123+01:00 today', 'Built <date> <ago>'],
    ['Posted 2026-11-28', 'Posted <date>'],
    ['Tue, 28 Nov 2026 10:42:05 GMT', '<date> <time>'],
    ['on 28 Nov 2026', 'on <date>'],
    ['on November 28, 2026.', 'on <date>.'],
    ['on 11/28/2026', 'on <date>'],
    ['at 10:42', 'at <time>'],
    ['at 10:42:05 am', 'at <time>'],
    ['at 9:05pm', 'at <time>'],
    ['Updated 3 minutes ago', 'Updated <ago>'],
    ['Updated an hour ago', 'Updated <ago>'],
    ['Updated 5h ago', 'Updated <ago>'],
    ['Updated just now', 'Updated <ago>'],
    ['Updated yesterday', 'Updated <ago>'],
    ['csrf 9f8e7d6c5b4a39281706f5e4d3c2b1a0', 'csrf <token>'],
    ['session dGhpc0lzQVRva2VuMTIzNDU2Nzg= end', 'session <token> end'],
    ['id 123e4567-e89b-12d3-a456-426614174000', 'id <token>'],
    ['[Docs](https://x.test/docs?token=ab12cd34&utm_source=nav#top)', '[Docs](https://x.test/docs)'],
    ['![Logo](/img/logo.png?v=17 "Logo")', '![Logo](/img/logo.png "Logo")'],
    ['see https://x.test/a?sid=42 now', 'see https://x.test/a now'],
    ['  spaced \t out   words ', 'spaced out words'],
  ])('masks %j', (input, expected) => {
    expect(normalizeLine(input)).toBe(expected);
  });

  it('makes lines that differ only by noise equal', () => {
    expect(normalizeLine('Updated 4 minutes ago at 10:42 on 28 Nov 2026')).toBe(
      normalizeLine('Updated 9 minutes ago at 11:07 on 29 Nov 2026'),
    );
    expect(normalizeLine('[a](/p?token=aaaa1111bbbb2222)')).toBe(normalizeLine('[a](/p?token=cccc3333)'));
  });

  it('leaves prose, ordinary numbers, counters and link paths alone', () => {
    for (const line of [
      'We sold 1500 widgets in 12 countries and 42 views, 7 comments, 13 likes.',
      'internationalization and characteristically long words stay',
      'May the fourth be with you; version 2.10.3 shipped in 2026.',
      'The meeting lasts 30 minutes and costs 12.50 dollars.',
      'A ratio of 3:1 is fine.',
    ]) {
      expect(normalizeLine(line)).toBe(line);
    }
    expect(normalizeLine('[A](/docs/a)')).not.toBe(normalizeLine('[A](/docs/b)'));
    expect(normalizeLine('Price 39 dollars')).not.toBe(normalizeLine('Price 49 dollars'));
    // A time's zone letters must not swallow the next word.
    expect(normalizeLine('Doors open at 10:42 first come first served')).toBe(
      'Doors open at <time> first come first served',
    );
    expect(normalizeLine('at 10:42 EST sharp')).toBe('at <time> sharp');
  });
});

describe('learnVolatile', () => {
  it('finds nothing on identical fetches or fetches that differ only by noise', () => {
    const a = renderPage(1, false)
      .replace(/^> Sponsored.*$/m, '> Ad')
      .replace(/^Sponsored.*$/m, 'Ad');
    const b = renderPage(2, false)
      .replace(/^> Sponsored.*$/m, '> Ad')
      .replace(/^Sponsored.*$/m, 'Ad');
    expect(learnVolatile([a, a])).toEqual([]);
    expect(learnVolatile([a, b])).toEqual([]);
  });

  it('finds one slot per rotating block, stable across fetches', () => {
    const slots12 = learnVolatile([renderPage(1, false), renderPage(2, false)]);
    const slots34 = learnVolatile([renderPage(3, false), renderPage(4, false)]);
    expect(slots12).toHaveLength(2);
    expect(new Set(slots34)).toEqual(new Set(slots12));
  });

  it('learns a block that appears and disappears between the same anchors', () => {
    const base = 'Intro paragraph.\n\nMiddle paragraph.\n\nOutro paragraph.';
    const withBanner = 'Intro paragraph.\n\nLimited offer banner!\n\nMiddle paragraph.\n\nOutro paragraph.';
    const slots = learnVolatile([base, withBanner]);
    expect(slots).toHaveLength(1);
    expect(comparePages(base, withBanner, slots).changed).toBe(false);
    expect(comparePages(base, withBanner, []).changed).toBe(true);
    // The slot covers the banner's place only, not the paragraph after it.
    expect(comparePages(base, base.replace('Middle', 'Central'), slots).changed).toBe(true);
    expect(comparePages(withBanner, withBanner.replace('Middle', 'Central'), slots).changed).toBe(true);
    expect(contentHash(base, slots)).toBe(contentHash(withBanner, slots));
    expect(contentHash(base)).not.toBe(contentHash(withBanner));
  });
});

describe('contentHash', () => {
  it('is stable under timestamps and tokens and moves on a real change', () => {
    const clean = (n: number, priced: boolean) =>
      renderPage(n, priced).replace(/^(> )?Sponsored.*$/gm, 'Ad slot');
    expect(contentHash(clean(1, false))).toBe(contentHash(clean(2, false)));
    expect(contentHash(clean(1, false))).not.toBe(contentHash(clean(1, true)));
    expect(contentHash(clean(1, false))).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves out volatile slots when given them', () => {
    const a = renderPage(1, false);
    const b = renderPage(2, false);
    const volatile = new Set(learnVolatile([a, b]));
    expect(contentHash(a)).not.toBe(contentHash(b));
    expect(contentHash(a, volatile)).toBe(contentHash(b, volatile));
    expect(contentHash(a, volatile)).not.toBe(contentHash(renderPage(3, true), volatile));
  });
});

// ---------------------------------------------------------------------------------------------------
// Real Markdown: converter golden files and a real article through our own scraper.

const golden = (name: string) =>
  fs.readFileSync(path.join(WEB, 'html-to-markdown-golden', name, 'expected.md'), 'utf8');
const dropbox = () =>
  parsePage(
    fs.readFileSync(path.join(WEB, 'readability', 'dropbox-blog', 'source.html'), 'utf8'),
    'http://fakehost/test/page.html',
  ).content;

interface RealCase {
  name: string;
  page: () => string;
  paragraph: string;
  edited: string;
  section: string;
}

const REAL: RealCase[] = [
  {
    name: 'golden commonmark__heading',
    page: () => golden('commonmark__heading'),
    paragraph: 'These should not be recognized as headings:',
    edited: 'None of the following lines are headings:',
    section: 'Heading \\\\#',
  },
  {
    name: 'golden commonmark__list',
    page: () => golden('commonmark__list'),
    paragraph: 'And also other lists...',
    edited: 'And here come a few more lists...',
    section: '',
  },
  {
    name: 'golden commonmark__blockquote',
    page: () => golden('commonmark__blockquote'),
    paragraph: 'Not a &gt; blockquote',
    edited: 'Still not a &gt; blockquote',
    section: '',
  },
  {
    name: 'readability dropbox-blog',
    page: dropbox,
    paragraph:
      'Some basic terms repeatedly used in this post, defined as used in the context of this discussion.',
    edited: 'A few terms used throughout this post, defined for this discussion.',
    section: 'How we designed Dropbox ATF: an async task framework › Glossary',
  },
];

describe.each(REAL)('real page: $name', ({ page, paragraph, edited, section }) => {
  it('is unchanged against itself', () => {
    const md = page();
    expect(md).toContain(paragraph);
    expect(comparePages(md, md, [])).toEqual({
      changed: false,
      diff: '',
      sections: [],
      added: 0,
      removed: 0,
    });
    expect(learnVolatile([md, md])).toEqual([]);
  });

  it('reports exactly one edited paragraph', () => {
    const md = page();
    const cmp = comparePages(md, md.replace(paragraph, edited), []);
    expect(cmp.changed).toBe(true);
    expect(changedLines(cmp.diff, '-')).toEqual([paragraph]);
    expect(changedLines(cmp.diff, '+')).toEqual([edited]);
    expect({ added: cmp.added, removed: cmp.removed }).toEqual({ added: 1, removed: 1 });
    expect(cmp.sections).toEqual([{ section, before: [paragraph], after: [edited] }]);
    // Without noise the diff is an exact patch: its line numbers and context point into the original.
    expect(applyPatch(md, cmp.diff)).toBe(md.replace(paragraph, edited));
  });
});

describe('renamed headings', () => {
  it('names the renamed section (golden headings)', () => {
    const md = golden('commonmark__heading');
    const cmp = comparePages(md, md.replace('## Heading 2\n', '## Second heading\n'), []);
    expect(cmp.changed).toBe(true);
    expect(changedLines(cmp.diff, '-')).toEqual(['## Heading 2']);
    expect(changedLines(cmp.diff, '+')).toEqual(['## Second heading']);
    expect(cmp.sections).toEqual([
      { section: 'Heading 1 › Second heading', before: ['## Heading 2'], after: ['## Second heading'] },
    ]);
  });

  it('names the renamed section (real article)', () => {
    const md = dropbox();
    const cmp = comparePages(md, md.replace('## Glossary', '## Terminology'), []);
    expect(cmp.changed).toBe(true);
    expect(cmp.sections.map((s) => s.section)).toEqual([
      'How we designed Dropbox ATF: an async task framework › Terminology',
    ]);
  });

  it('ignores query-string noise added to every link of a real article', () => {
    const md = dropbox();
    const noisy = md.replace(
      /\]\(([^)\s]+)\)/g,
      (_m, url: string) => `](${url}?utm_source=feed&sid=${token(1)})`,
    );
    expect(noisy).not.toBe(md);
    expect(comparePages(md, noisy, []).changed).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('size guard', () => {
  function bigPage(paragraphs: number, salt = ''): string {
    const parts: string[] = [];
    for (let i = 0; i < paragraphs; i++) {
      if (i % 20 === 0) parts.push(`## Section ${salt}${i / 20}`);
      parts.push(
        `Paragraph ${salt}${i} of the long page talks about widget number ${i} and how it was built, tested and shipped to its owner.`,
      );
    }
    return parts.join('\n\n');
  }

  it('compares a 1 MB page with one change quickly', () => {
    const before = bigPage(8_500);
    expect(before.length).toBeGreaterThan(1_000_000);
    const target = 'Paragraph 4321 of the long page';
    const after = before.replace(target, 'Paragraph 4321 (revised) of the long page');
    const started = performance.now();
    const cmp = comparePages(before, after, []);
    const elapsed = performance.now() - started;
    expect(cmp.changed).toBe(true);
    expect({ added: cmp.added, removed: cmp.removed }).toEqual({ added: 1, removed: 1 });
    expect(cmp.sections.map((s) => s.section)).toEqual(['Section 216']);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('caps the diff of a rewritten 1 MB page', () => {
    const before = bigPage(8_500);
    const after = bigPage(8_500, 'x');
    const started = performance.now();
    const cmp = comparePages(before, after, []);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(cmp.changed).toBe(true);
    expect(cmp.diff.length).toBeLessThanOrEqual(200_000 + 100);
    expect(cmp.diff.endsWith('… (diff truncated)\n')).toBe(true);
    expect(cmp.added).toBe(8_925);
  });
});
