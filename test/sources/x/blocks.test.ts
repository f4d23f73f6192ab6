// isXBlocked on the captured GraphQL answers, the constructed syndication answers and the
// constructed refusals: the rate-limit refusal is a wall (retried through another proxy) whatever
// its status; posts, tombstones and token trouble are answers.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SafeResponse } from '../../../src/net/safe-fetch.js';
import { isXBlocked } from '../../../src/sources/x/blocks.js';
import { CONSTRUCTED_X, SHARED_X } from './replay.js';

const answer = (body: Buffer | string, more: Partial<SafeResponse> = {}): SafeResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(body),
  url: 'https://cdn.syndication.twimg.com/tweet-result?id=1',
  redirects: [],
  truncated: false,
  contentType: 'application/json',
  ...more,
});
/** A constructed whole answer ({status, headers, body}). */
const recorded = (name: string) => {
  const a = JSON.parse(fs.readFileSync(path.join(CONSTRUCTED_X, name), 'utf8'));
  return answer(a.body, { status: a.status, headers: a.headers });
};

describe('isXBlocked', () => {
  it('passes every captured GraphQL answer and the constructed syndication answers', () => {
    for (const op of ['TweetResultByRestId', 'TweetDetail']) {
      const dir = path.join(SHARED_X, op);
      for (const name of fs.readdirSync(dir)) {
        expect([op, name, isXBlocked(answer(fs.readFileSync(path.join(dir, name))))]).toEqual([
          op,
          name,
          false,
        ]);
      }
    }
    for (const name of fs.readdirSync(CONSTRUCTED_X).filter((n) => n.startsWith('tweet-result-'))) {
      expect([name, isXBlocked(answer(fs.readFileSync(path.join(CONSTRUCTED_X, name))))]).toEqual([
        name,
        false,
      ]);
    }
  });

  it('recognises the rate-limit refusal by its code, and by its exhausted counter', () => {
    expect(isXBlocked(recorded('answer-rate-limited.json'))).toBe(true);
    const body = '{"errors":[{"code":88,"message":"Rate limit exceeded."}]}';
    expect(isXBlocked(answer(body))).toBe(true);
    expect(isXBlocked(answer('', { status: 403, headers: { 'x-rate-limit-remaining': '0' } }))).toBe(true);
  });

  it('leaves token trouble, missing posts and the last allowed call as answers', () => {
    expect(isXBlocked(recorded('answer-bad-guest-token.json'))).toBe(false);
    expect(isXBlocked(answer('{"errors":[{"code":200}]}', { status: 403 }))).toBe(false);
    expect(isXBlocked(answer('{"errors":[{"code":32,"message":"Could not authenticate you."}]}'))).toBe(
      false,
    );
    expect(isXBlocked(answer('', { status: 404 }))).toBe(false);
    expect(
      isXBlocked(answer('{"data":{"tweetResult":{}}}', { headers: { 'x-rate-limit-remaining': '0' } })),
    ).toBe(false);
  });
});
