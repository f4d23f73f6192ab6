// Following continuations on the captured playlist pages (a first page and a browse continuation
// that overlaps it) and on stand-in chains that repeat a token or never end.
import { describe, expect, it } from 'vitest';
import {
  type ListedVideo,
  parseBrowseContinuation,
  parsePlaylistPage,
} from '../../../src/sources/youtube/listings.js';
import { followPages, type Paged } from '../../../src/sources/youtube/paging.js';
import { captureInitialData, captureJson } from '../../support/youtube-captures.js';

const byId = (v: ListedVideo) => v.id;

function firstPage(): Paged<ListedVideo> {
  const page = parsePlaylistPage(captureInitialData('node-ytpl/firstpage_02.html'));
  if (!page.found) throw new Error(page.reason);
  return page;
}

describe('followPages', () => {
  it('stops on the first page when it holds enough, fetching nothing', async () => {
    const result = await followPages(firstPage(), () => Promise.reject(new Error('no fetch expected')), {
      limit: 10,
      key: byId,
    });
    expect(result.items.map(byId).slice(0, 2)).toEqual(['eDcKZpoUc6s', 'zlT81XS9iqQ']);
    expect(result).toMatchObject({ exhausted: false, fetched: 0 });
    expect(result.items).toHaveLength(10);
  });

  it('follows the continuation, leaving out videos both pages hold', async () => {
    const first = firstPage();
    const asked: string[] = [];
    const second = parseBrowseContinuation(captureJson('node-ytpl/secondpage_01.html'));
    const result = await followPages(
      first,
      async (token) => {
        asked.push(token);
        return second;
      },
      { limit: 1000, key: byId },
    );
    expect(asked).toEqual([first.continuation, '<secondContinuationToken>']);
    // 94 + 99 distinct on the two pages, 2 of them on both. The stand-in answers the second page's
    // (scrubbed) token with that same page again, whose token is then a repeat: the walk ends.
    expect(result.items).toHaveLength(94 + 99 - 2);
    expect(new Set(result.items.map(byId)).size).toBe(result.items.length);
    expect(result.items.at(-1)?.id).toBe('p4M3Gle4NQ4');
    expect(result).toMatchObject({ exhausted: true, fetched: 2 });
  });

  it('cuts at the limit in the middle of a later page', async () => {
    const second = parseBrowseContinuation(captureJson('node-ytpl/secondpage_01.html'));
    const result = await followPages(firstPage(), async () => second, { limit: 150, key: byId });
    expect(result.items).toHaveLength(150);
    expect(result).toMatchObject({ exhausted: false, fetched: 1 });
  });

  it('ends an endless chain of empty pages at the page cap', async () => {
    let n = 0;
    const result = await followPages(
      { items: [], continuation: 't0' },
      async () => ({ items: [], continuation: `t${++n}` }),
      { limit: 5, key: String, maxPages: 7 },
    );
    expect(result).toEqual({ items: [], exhausted: true, fetched: 7 });
  });
});
