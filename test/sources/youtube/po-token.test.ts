// Proof-of-origin tokens: reading a provider's answer, adding a token to a caption URL, the settings,
// and the provider source against a loopback stand-in of the bgutil protocol (cache per binding until
// expiry, one call for concurrent asks, a clear bounded failure when the provider misbehaves).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { AppError } from '../../../src/errors.js';
import { errorStatus } from '../../../src/http/error-status.js';
import {
  PROVIDER_SETTING,
  ProviderPoTokens,
  parseProviderAnswer,
  poTokenSource,
  StaticPoTokens,
  withPoToken,
} from '../../../src/sources/youtube/po-token.js';
import { type PotProvider, potFor, startPotProvider } from '../../support/pot-provider.js';

const TOKEN = 'MnQtAbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_';

describe('parseProviderAnswer', () => {
  it('reads either spelling of the answer, with an ISO or numeric expiry', () => {
    expect(
      parseProviderAnswer({ po_token: TOKEN, content_binding: 'vid', expires_at: '2026-01-01T00:00:00Z' }),
    ).toEqual({ token: TOKEN, binding: 'vid', expiresAt: Date.parse('2026-01-01T00:00:00Z') });
    expect(parseProviderAnswer({ poToken: TOKEN, contentBinding: 'vid', expiresAt: 1_767_225_600 })).toEqual({
      token: TOKEN,
      binding: 'vid',
      expiresAt: 1_767_225_600_000,
    });
    expect(parseProviderAnswer({ poToken: TOKEN })).toEqual({ token: TOKEN, binding: null, expiresAt: null });
  });

  it('refuses what is not a token answer', () => {
    for (const body of [
      null,
      'text',
      [TOKEN],
      {},
      { error: 'failed' },
      { poToken: 42 },
      { poToken: 'short' },
    ]) {
      expect(parseProviderAnswer(body)).toBeNull();
    }
    expect(parseProviderAnswer({ poToken: '<html><body>It works!</body></html>' })).toBeNull();
  });
});

describe('withPoToken', () => {
  it('adds pot, potc and the client name, keeping the signed parameters', () => {
    const url = withPoToken(
      'https://www.youtube.com/api/timedtext?v=abc&exp=xpe&signature=1F96.7F4A&lang=en',
      TOKEN,
      'ANDROID',
    );
    const q = new URL(url).searchParams;
    expect(q.get('pot')).toBe(TOKEN);
    expect(q.get('potc')).toBe('1');
    expect(q.get('c')).toBe('ANDROID');
    expect(q.get('signature')).toBe('1F96.7F4A');
    expect(q.get('exp')).toBe('xpe');
  });
});

describe('PO token settings', () => {
  const configError = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      return err;
    }
    throw new Error('expected a ConfigError');
  };

  it('default to no token source', () => {
    const config = loadConfig({});
    expect(config.youtubePoToken).toEqual({
      providerUrl: null,
      token: null,
      visitorData: null,
      timeoutMs: 5000,
    });
    expect(poTokenSource(config.youtubePoToken)).toBeNull();
  });

  it('take a provider URL (a loopback address is fine) or a static token', () => {
    const provider = loadConfig({ UNFURL_YOUTUBE_POT_PROVIDER_URL: 'http://127.0.0.1:4416/' }).youtubePoToken;
    expect(provider.providerUrl).toBe('http://127.0.0.1:4416');
    expect(poTokenSource(provider)).toBeInstanceOf(ProviderPoTokens);
    const fixed = loadConfig({
      UNFURL_YOUTUBE_PO_TOKEN: TOKEN,
      UNFURL_YOUTUBE_VISITOR_DATA: 'Cgt',
    }).youtubePoToken;
    expect(poTokenSource(fixed)).toBeInstanceOf(StaticPoTokens);
  });

  it('refuse a malformed provider URL at start, naming the setting', () => {
    for (const bad of ['127.0.0.1:4416', 'not a url', 'ftp://127.0.0.1:4416']) {
      const err = configError({ UNFURL_YOUTUBE_POT_PROVIDER_URL: bad });
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toContain('UNFURL_YOUTUBE_POT_PROVIDER_URL');
    }
    expect((configError({ UNFURL_YOUTUBE_POT_TIMEOUT_MS: 'soon' }) as Error).message).toContain(
      'UNFURL_YOUTUBE_POT_TIMEOUT_MS',
    );
  });
});

describe('ProviderPoTokens', () => {
  let provider: PotProvider;
  let clock = Date.now();
  const source = () => new ProviderPoTokens(provider.url, { timeoutMs: 300, now: () => clock });

  beforeAll(async () => {
    provider = await startPotProvider();
  });
  afterAll(() => provider.close());
  beforeEach(() => {
    provider.calls.length = 0;
    provider.mode = 'ok';
    provider.expiresAt = undefined;
    clock = Date.now();
  });

  it('asks with the content binding, keeps the token until shortly before it expires', async () => {
    const tokens = source();
    provider.expiresAt = clock + 10 * 60_000;
    expect(await tokens.token('vidOne12345')).toEqual({ token: potFor('vidOne12345'), visitorData: null });
    expect(provider.calls).toEqual([{ content_binding: 'vidOne12345', bypass_cache: false }]);
    clock += 8 * 60_000;
    await tokens.token('vidOne12345');
    expect(provider.calls).toHaveLength(1);
    // Another binding is another token.
    expect((await tokens.token('vidTwo12345')).token).toBe(potFor('vidTwo12345'));
    expect(provider.calls).toHaveLength(2);
    // Within the last minute of its life the token is not used any more: a fresh one is asked for.
    clock += 90_000;
    await tokens.token('vidOne12345');
    expect(provider.calls).toHaveLength(3);
  });

  it('shares one call among concurrent asks for one binding', async () => {
    const tokens = source();
    const all = await Promise.all([
      tokens.token('same1234567'),
      tokens.token('same1234567'),
      tokens.token('same1234567'),
    ]);
    expect(new Set(all.map((t) => t.token))).toEqual(new Set([potFor('same1234567')]));
    expect(provider.calls).toHaveLength(1);
  });

  it.each([
    ['down', /UNFURL_YOUTUBE_POT_PROVIDER_URL\) answered HTTP 500/],
    ['slow', /UNFURL_YOUTUBE_POT_PROVIDER_URL\) did not answer within 300 ms/],
    ['garbage', /UNFURL_YOUTUBE_POT_PROVIDER_URL\) answered something that is not JSON/],
  ] as const)('a provider that is %s is a 503 naming the setting, in bounded time', async (mode, message) => {
    provider.mode = mode;
    const tokens = source();
    const started = Date.now();
    const err = await tokens.token('failing1234').catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).toBeInstanceOf(AppError);
    expect(errorStatus[(err as AppError).code]).toBe(503);
    expect((err as AppError).code).toBe('provider_unavailable');
    expect((err as AppError).message).toMatch(message);
    // The failure is remembered briefly: a walk over the clients does not wait on it again.
    await expect(tokens.token('failing1234')).rejects.toBe(err);
    expect(provider.calls).toHaveLength(1);
  });

  it('refuses a provider that cannot be reached', async () => {
    const closed = new ProviderPoTokens('http://127.0.0.1:1', { timeoutMs: 300 });
    await expect(closed.token('x')).rejects.toThrow(`${PROVIDER_SETTING}) could not be reached`);
  });
});
