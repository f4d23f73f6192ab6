// The player client table: the built-in chain, an operator's table (UNFURL_YOUTUBE_CLIENTS) as names,
// amendments of known clients or whole new clients, and the start-up errors of a malformed table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import {
  ClientTableError,
  DEFAULT_PLAYER_CLIENTS,
  defaultPlayerChain,
  KNOWN_CLIENTS,
  parseClientTable,
} from '../../../src/sources/youtube/client-table.js';
import { PLATFORM_CLIENT_NAMES } from '../../support/youtube-replay.js';

describe('the built-in table', () => {
  it('tries the two captured mobile clients first, then the token-free ones, all names the platform takes', () => {
    expect(DEFAULT_PLAYER_CLIENTS.slice(0, 2)).toEqual(['ANDROID', 'IOS']);
    expect(DEFAULT_PLAYER_CLIENTS).toEqual(
      expect.arrayContaining(['VISIONOS', 'TVHTML5', 'WEB_EMBEDDED_PLAYER', 'MWEB']),
    );
    // The desktop client wants a proof-of-origin token: never in the default chain.
    expect(DEFAULT_PLAYER_CLIENTS).not.toContain('WEB');
    for (const c of Object.values(KNOWN_CLIENTS))
      expect(PLATFORM_CLIENT_NAMES.has(c.clientName), c.name).toBe(true);
    const ids = defaultPlayerChain().map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(KNOWN_CLIENTS.WEB_EMBEDDED_PLAYER.thirdParty).toEqual({
      embedUrl: expect.stringMatching(/^https:\/\//),
    });
    expect(KNOWN_CLIENTS.WEB_EMBEDDED_PLAYER.thirdParty?.embedUrl).not.toMatch(/youtube/);
    // Only browser-like clients take account cookies (the mobile apps refuse them).
    expect(
      defaultPlayerChain()
        .filter((c) => c.cookies)
        .map((c) => c.name),
    ).toEqual(['TVHTML5', 'WEB_EMBEDDED_PLAYER', 'MWEB']);
  });
});

describe('parseClientTable', () => {
  it('takes names of known clients, amendments of them, variants and whole new clients, in order', () => {
    const table = parseClientTable([
      'TVHTML5',
      { name: 'IOS', version: '21.26.4', context: { osVersion: '18.5' } },
      {
        name: 'TV_OLD',
        clientName: 'TVHTML5',
        version: '5.20260707',
        userAgent: 'Mozilla/5.0 (ChromiumStylePlatform) Cobalt/Version',
      },
      {
        name: 'MY_CLIENT',
        id: 999,
        version: '1.0',
        userAgent: 'my/1.0',
        headers: { 'X-Goog-Api-Key': 'k' },
        thirdParty: { embedUrl: 'https://example.net/' },
        cookies: true,
      },
    ]);
    expect(table.map((c) => c.name)).toEqual(['TVHTML5', 'IOS', 'TV_OLD', 'MY_CLIENT']);
    expect(table[0]).toEqual(KNOWN_CLIENTS.TVHTML5);
    expect(table[1]).toEqual({
      ...KNOWN_CLIENTS.IOS,
      version: '21.26.4',
      context: { ...KNOWN_CLIENTS.IOS.context, osVersion: '18.5' },
    });
    expect(table[2]).toMatchObject({ clientName: 'TVHTML5', id: 7, version: '5.20260707', cookies: true });
    expect(table[3]).toEqual({
      name: 'MY_CLIENT',
      clientName: 'MY_CLIENT',
      id: 999,
      version: '1.0',
      userAgent: 'my/1.0',
      context: {},
      thirdParty: { embedUrl: 'https://example.net/' },
      headers: { 'x-goog-api-key': 'k' },
      cookies: true,
      playerPoToken: false,
    });
    // Whether a client's player request carries a token: the desktop client's does; an entry may say.
    expect(
      parseClientTable(['WEB', { name: 'MWEB', playerPoToken: true }]).map((c) => c.playerPoToken),
    ).toEqual([true, true]);
  });

  it.each([
    [{}, /must be a non-empty JSON array/],
    [[], /must be a non-empty JSON array/],
    [[42], /entry 1: must be a client name or an object/],
    [
      ['IOS', 'NOPE'],
      /entry 2 \(NOPE\): is not a known client \(ANDROID, IOS.*\), so it needs id, version, userAgent/,
    ],
    [[{ name: 'IOS', verison: '1' }], /entry 1 \(IOS\): unknown field "verison"/],
    [[{ name: 'IOS', version: '1 2' }], /entry 1 \(IOS\): version must be/],
    [[{ name: 'IOS', id: 0 }], /entry 1 \(IOS\): id must be a whole number/],
    [[{ name: 'IOS', userAgent: 'a\nb' }], /entry 1 \(IOS\): userAgent must be/],
    [[{ name: 'IOS', context: { nested: { a: 1 } } }], /entry 1 \(IOS\): context.nested must be a string/],
    [
      [{ name: 'IOS', context: { clientVersion: '1' } }],
      /context.clientVersion is set by the entry's own fields/,
    ],
    [[{ name: 'IOS', headers: { Cookie: 'SID=1' } }], /entry 1 \(IOS\): headers: Cookie cannot be set here/],
    [[{ name: 'IOS', cookies: 'yes' }], /entry 1 \(IOS\): cookies must be true or false/],
    [[{ name: 'IOS', playerPoToken: 1 }], /entry 1 \(IOS\): playerPoToken must be true or false/],
    [[{ name: 'bad name' }], /entry 1 \(bad name\): name must be/],
    [['IOS', { name: 'IOS' }], /entry 2 \(IOS\): is named twice/],
  ])('refuses %j', (value, message) => {
    expect(() => parseClientTable(value)).toThrow(ClientTableError);
    expect(() => parseClientTable(value)).toThrow(message);
  });
});

describe('UNFURL_YOUTUBE_CLIENTS at start-up', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-clients-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const configError = (value: string) => {
    try {
      loadConfig({ UNFURL_YOUTUBE_CLIENTS: value });
    } catch (err) {
      if (err instanceof ConfigError) return err.message;
      throw err;
    }
    throw new Error('no ConfigError');
  };

  it('reads the table inline (a value starting with [) or from a file (@ and its path); unset: null', () => {
    expect(loadConfig({}).youtubeClients).toBeNull();
    expect(
      loadConfig({ UNFURL_YOUTUBE_CLIENTS: '["VISIONOS","IOS"]' }).youtubeClients?.map((c) => c.name),
    ).toEqual(['VISIONOS', 'IOS']);
    const file = path.join(dir, 'clients.json');
    fs.writeFileSync(file, JSON.stringify([{ name: 'ANDROID', version: '21.26.364' }]));
    expect(loadConfig({ UNFURL_YOUTUBE_CLIENTS: `@${file}` }).youtubeClients).toEqual([
      { ...KNOWN_CLIENTS.ANDROID, version: '21.26.364' },
    ]);
  });

  it('stops the start with an error naming the setting and what is wrong', () => {
    expect(configError('TVHTML5')).toMatch(
      /^configuration UNFURL_YOUTUBE_CLIENTS: must be a JSON array of client entries, or @ and the path/,
    );
    expect(configError('[{"name": "IOS",}]')).toMatch(
      /^configuration UNFURL_YOUTUBE_CLIENTS: is not valid JSON/,
    );
    expect(configError('["IOS", "NOPE"]')).toMatch(
      /^configuration UNFURL_YOUTUBE_CLIENTS: entry 2 \(NOPE\): is not a known client/,
    );
    expect(configError(`@${path.join(dir, 'missing.json')}`)).toMatch(
      /^configuration UNFURL_YOUTUBE_CLIENTS: cannot read .*missing\.json \(ENOENT\)/,
    );
    expect(configError('@')).toMatch(/must be a JSON array/);
  });
});
