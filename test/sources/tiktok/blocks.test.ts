// isTikTokBlocked on the captured video page, the constructed status pages and walls, and the WAF
// page the replay generates: only a page with no video data, or an empty item under statusCode 0,
// is a wall (retried through another proxy); private, removed and challenge pages are answers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SafeResponse } from '../../../src/net/safe-fetch.js';
import { isTikTokBlocked } from '../../../src/sources/tiktok/blocks.js';
import { CAPTURED_ID, CONSTRUCTED_TIKTOK, SHARED_TIKTOK, wafPage } from './replay.js';

const answer = (body: Buffer | string, more: Partial<SafeResponse> = {}): SafeResponse => ({
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: Buffer.from(body),
  url: 'https://www.tiktok.com/@u/video/1',
  redirects: [],
  truncated: false,
  contentType: 'text/html',
  ...more,
});
const file = (dir: string, name: string) => answer(fs.readFileSync(path.join(dir, name)));

describe('isTikTokBlocked', () => {
  it('passes the captured video page and the constructed answers about a post', () => {
    expect(isTikTokBlocked(file(SHARED_TIKTOK, `video-${CAPTURED_ID}.html`))).toBe(false);
    for (const name of ['page-status-10216.html', 'page-status-10204.html', 'page-no-captions.html']) {
      expect([name, isTikTokBlocked(file(CONSTRUCTED_TIKTOK, name))]).toEqual([name, false]);
    }
  });

  it('recognises the verify page and an empty item under statusCode 0', () => {
    expect(isTikTokBlocked(file(CONSTRUCTED_TIKTOK, 'page-verify.html'))).toBe(true);
    expect(isTikTokBlocked(file(CONSTRUCTED_TIKTOK, 'page-empty-item.html'))).toBe(true);
    expect(isTikTokBlocked(answer('<html><body>Please try again later</body></html>'))).toBe(true);
  });

  it('leaves the WAF challenge, login redirects, truncated reads and caption files to the client', () => {
    expect(isTikTokBlocked(answer(wafPage(Buffer.from('constructed-prefix'), 42)))).toBe(false);
    const login = { status: 302, headers: { location: 'https://www.tiktok.com/login?redirect_url=x' } };
    expect(isTikTokBlocked(answer('', login))).toBe(false);
    const page = fs.readFileSync(path.join(CONSTRUCTED_TIKTOK, 'page-verify.html'));
    expect(isTikTokBlocked(answer(page, { truncated: true }))).toBe(false);
    const vtt = fs.readFileSync(path.join(CONSTRUCTED_TIKTOK, 'captions-spa-ES.vtt'));
    expect(isTikTokBlocked(answer(vtt, { contentType: 'text/vtt' }))).toBe(false);
    expect(isTikTokBlocked(answer('<html></html>', { status: 404 }))).toBe(false);
  });
});
