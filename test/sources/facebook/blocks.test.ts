// isFacebookBlocked on the constructed pages and walls: a checkpoint (redirect or page) and a
// stripped, empty page are walls (retried through another proxy); video pages, the login wall of a
// restricted video, removed videos and caption files are answers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SafeResponse } from '../../../src/net/safe-fetch.js';
import { isFacebookBlocked } from '../../../src/sources/facebook/blocks.js';
import { CONSTRUCTED_FB } from './replay.js';

const answer = (body: Buffer | string, more: Partial<SafeResponse> = {}): SafeResponse => ({
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body: Buffer.from(body),
  url: 'https://www.facebook.com/watch/?v=1',
  redirects: [],
  truncated: false,
  contentType: 'text/html',
  ...more,
});
const page = (name: string, more: Partial<SafeResponse> = {}) =>
  answer(fs.readFileSync(path.join(CONSTRUCTED_FB, name)), more);

describe('isFacebookBlocked', () => {
  it('passes video pages, the removed-video page and caption files', () => {
    for (const name of [
      'watch-10153231379946729.html',
      'reel-1234567890123456.html',
      'no-captions-20000000000000001.html',
      'unavailable.html',
    ]) {
      expect([name, isFacebookBlocked(page(name))]).toEqual([name, false]);
    }
    expect(isFacebookBlocked(page('captions-en_US.srt', { contentType: 'text/plain' }))).toBe(false);
    expect(isFacebookBlocked(page('captions-es_LA.vtt', { contentType: 'text/vtt' }))).toBe(false);
    expect(isFacebookBlocked(answer('', { contentType: 'text/vtt' }))).toBe(false);
  });

  it('recognises the checkpoint (redirect and page) and stripped or empty pages', () => {
    const a = JSON.parse(
      fs.readFileSync(path.join(CONSTRUCTED_FB, 'answer-checkpoint-redirect.json'), 'utf8'),
    );
    expect(isFacebookBlocked(answer(a.body, { status: a.status, headers: a.headers }))).toBe(true);
    expect(isFacebookBlocked(page('temporarily-blocked.html'))).toBe(true);
    expect(isFacebookBlocked(page('empty-page.html'))).toBe(true);
    expect(isFacebookBlocked(answer(''))).toBe(true);
  });

  it('leaves the login wall of a restricted video, other redirects and truncated reads as answers', () => {
    const login = { status: 302, headers: { location: 'https://www.facebook.com/login/?next=%2Fwatch%2F' } };
    expect(isFacebookBlocked(answer('', login))).toBe(false);
    const share = { status: 302, headers: { location: '/reel/1234567890123456/?mibextid=x' } };
    expect(isFacebookBlocked(answer('', share))).toBe(false);
    expect(isFacebookBlocked(page('empty-page.html', { truncated: true }))).toBe(false);
    expect(isFacebookBlocked(answer('', { status: 404 }))).toBe(false);
  });
});
