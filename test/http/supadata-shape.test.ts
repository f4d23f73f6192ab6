// The projection onto the hosted API's published shapes, as pure functions (the Python SDK's own
// run is test/sdk/supadata-python.test.ts).
import { describe, expect, it } from 'vitest';
import { crawlForSdk, project, shapeOf, skipFromNext, supadataSdk } from '../../src/http/supadata-shape.js';

describe('supadataSdk', () => {
  it('knows the Python SDK by its User-Agent, and nothing else', () => {
    expect(supadataSdk('Supadata-Python-SDK/1.6.0')).toBe('python');
    expect(supadataSdk('supadata-js/1.4.0')).toBeNull();
    expect(supadataSdk('curl/8.0')).toBeNull();
    expect(supadataSdk(undefined)).toBeNull();
    expect(supadataSdk(`Supadata-Python-SDK/${'1'.repeat(200)}`)).toBeNull();
  });
});

describe('project', () => {
  it('keeps the declared fields, in lists and nested objects, and leaves absent ones absent', () => {
    const shape = { id: true, channel: { id: true }, items: [{ a: true }] } as const;
    expect(
      project({ id: 'x', extra: 1, channel: { id: 'c', url: 'u' }, items: [{ a: 1, b: 2 }, 'odd'] }, shape),
    ).toEqual({ id: 'x', channel: { id: 'c' }, items: [{ a: 1 }, 'odd'] });
    expect(project({ other: 1 }, shape)).toEqual({});
    expect(project(null, shape)).toBeNull();
    expect(project('text', shape)).toBe('text');
  });

  it('video metadata: media in its published variant; the Python carousel under `carousel`', () => {
    const meta = { platform: 'instagram', type: 'carousel', id: 'p', isLive: false };
    const carousel = { type: 'carousel', items: [{ type: 'image', url: 'i', width: 1, extra: 0 }] };
    expect(project({ ...meta, media: carousel }, shapeOf('python', '/v1/metadata')!)).toEqual({
      platform: 'instagram',
      type: 'carousel',
      id: 'p',
      media: { type: 'carousel', carousel: [{ type: 'image', image: { url: 'i', width: 1 } }] },
    });
    const video = { type: 'video', duration: 3, thumbnailUrl: 't', url: 'u' };
    expect(project({ media: video }, shapeOf('python', '/v1/metadata')!)).toEqual({
      media: { type: 'video', duration: 3, thumbnailUrl: 't' },
    });
  });

  it('the /v1/vidsite twins share the /v1/youtube shapes; unknown routes have none', () => {
    expect(shapeOf('python', '/v1/vidsite/video')).toBe(shapeOf('python', '/v1/youtube/video'));
    expect(shapeOf('python', '/v1/account')).toBeUndefined();
    expect(shapeOf('python', undefined)).toBeUndefined();
  });

  it('batch error codes in kebab case', () => {
    const batch = { status: 'completed', results: [{ videoId: 'v', error: {}, errorCode: 'not_found' }] };
    expect(project(batch, shapeOf('python', '/v1/youtube/batch/:jobId')!)).toEqual({
      status: 'completed',
      results: [{ videoId: 'v', errorCode: 'not-found' }],
    });
  });
});

describe('crawl paging for the SDK', () => {
  it('reads a token or our own next URL; anything else is null', () => {
    expect(skipFromNext('100')).toBe(100);
    expect(skipFromNext('http://h/v1/web/crawl/job_1?skip=200')).toBe(200);
    expect(skipFromNext('-1')).toBeNull();
    expect(skipFromNext('1e3')).toBeNull();
    expect(skipFromNext('http://h/x')).toBeNull();
    expect(skipFromNext('9'.repeat(20))).toBeNull();
  });

  it('a running crawl repeats its slice end as `next`; an ended one only while pages remain', () => {
    const pages = [{ url: 'a' }, { url: 'b' }];
    expect(crawlForSdk({ status: 'scraping', pages }, 10)).toEqual({ status: 'scraping', pages, next: '12' });
    expect(crawlForSdk({ status: 'completed', pages, next: 'http://h/c?skip=100' }, 0)).toEqual({
      status: 'completed',
      pages,
      next: '100',
    });
    expect(crawlForSdk({ status: 'completed', pages }, 0)).toEqual({ status: 'completed', pages });
    expect(crawlForSdk({ status: 'failed', pages: [] }, 0)).toEqual({ status: 'failed', pages: [] });
  });
});
