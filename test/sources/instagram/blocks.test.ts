// isInstagramBlocked on the captured logged-out pages, the constructed post-query answers and the
// constructed walls: the login redirect and the "please wait" refusal are walls (retried through
// another proxy); removed, gated and photo-only posts are answers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SafeResponse } from '../../../src/net/safe-fetch.js';
import { isInstagramBlocked } from '../../../src/sources/instagram/blocks.js';
import { CONSTRUCTED_IG, SHARED_IG } from './replay.js';

const answer = (body: Buffer | string, more: Partial<SafeResponse> = {}): SafeResponse => ({
  status: 200,
  headers: {},
  body: Buffer.from(body),
  url: 'https://www.instagram.com/api/graphql',
  redirects: [],
  truncated: false,
  contentType: null,
  ...more,
});
/** A constructed whole answer ({status, headers, body}). */
const recorded = (name: string) => {
  const a = JSON.parse(fs.readFileSync(path.join(CONSTRUCTED_IG, name), 'utf8'));
  return answer(a.body, { status: a.status, headers: a.headers });
};

describe('isInstagramBlocked', () => {
  it('passes the captured pages and the post-query answers (removed and gated posts included)', () => {
    for (const name of ['p-CPQjO5RIIO9.video.html', 'reel-CN2VQ1yI_MA.clip.html']) {
      expect([name, isInstagramBlocked(answer(fs.readFileSync(path.join(SHARED_IG, name))))]).toEqual([
        name,
        false,
      ]);
    }
    for (const name of fs.readdirSync(CONSTRUCTED_IG).filter((n) => n.startsWith('graphql-'))) {
      const res = answer(fs.readFileSync(path.join(CONSTRUCTED_IG, name)));
      expect([name, isInstagramBlocked(res)]).toEqual([name, false]);
    }
  });

  it('recognises the login redirect and the "please wait" refusal', () => {
    expect(isInstagramBlocked(recorded('answer-login-redirect.json'))).toBe(true);
    expect(isInstagramBlocked(recorded('answer-please-wait.json'))).toBe(true);
    const challenge = { status: 302, headers: { location: '/challenge/?next=/p/CN2VQ1yI_MA/' } };
    expect(isInstagramBlocked(answer('', challenge))).toBe(true);
  });

  it('follows redirects that are not the wall, and leaves 404s as answers', () => {
    const share = {
      status: 302,
      headers: { location: 'https://www.instagram.com/reel/CN2VQ1yI_MA/?igsh=x' },
    };
    expect(isInstagramBlocked(answer('', share))).toBe(false);
    expect(isInstagramBlocked(answer('', { status: 404 }))).toBe(false);
  });
});
