// ytInitialData and ytcfg out of every kind of page the captures hold: 2023 `var` assignments,
// 2020 `window["…"]` ones, error and landing pages, and the pages that carry none (embed, consent,
// reCAPTCHA, a JSON body); plus the assignment forms no capture shows, on small literal pages.
import { describe, expect, it } from 'vitest';
import {
  errorAlert,
  extractAssignedJson,
  extractInitialData,
  extractYtcfg,
  initialDataFromPbj,
  jsonEnd,
} from '../../../src/sources/youtube/initial-data.js';
import { dig } from '../../../src/sources/youtube/tree.js';
import { capture, captureJson } from '../../support/youtube-captures.js';

describe('extractInitialData on the captures', () => {
  it.each([
    // 2023 pages: `var ytInitialData = {…};`
    ['pytube/2lAe1cqCOXo.watch.html', ['currentVideoEndpoint', 'watchEndpoint', 'videoId'], '2lAe1cqCOXo'],
    ['pytube/WXxV9g7lsFE.watch.html', ['currentVideoEndpoint', 'watchEndpoint', 'videoId'], 'WXxV9g7lsFE'],
    ['pytube/irauhITDrsE.watch.html', ['currentVideoEndpoint', 'watchEndpoint', 'videoId'], 'irauhITDrsE'],
    [
      'youtube-transcript-api/youtube.html.static',
      ['currentVideoEndpoint', 'watchEndpoint', 'videoId'],
      'GJLlxj_dtq8',
    ],
    [
      'pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html',
      ['metadata', 'channelMetadataRenderer', 'externalId'],
      'UCs6nmQViDpUw0nuIx9c_WvA',
    ],
    [
      'pytube/channel-UCoLrcjPV5PbUrUyXq5mjc_A-shorts.html',
      ['header', 'c4TabbedHeaderRenderer', 'title'],
      'MLB',
    ],
    [
      'pytube/playlist-PLzMcBGfZo4-mP7qA9cagf68V06sko5otr.html',
      ['metadata', 'playlistMetadataRenderer', 'title'],
      'Python Machine Learning Tutorials',
    ],
    [
      'node-ytpl/firstpage_01.html',
      ['metadata', 'playlistMetadataRenderer', 'title'],
      'Uploads from NoCopyrightSounds',
    ],
    [
      'node-ytdl-core/live-now.watch.html',
      ['currentVideoEndpoint', 'watchEndpoint', 'videoId'],
      '5qap5aO4i9A',
    ],
    // 2020 pages: `window["ytInitialData"] = {…};`
    [
      'node-ytdl-core/regular.watch.html',
      ['currentVideoEndpoint', 'watchEndpoint', 'videoId'],
      '_HSylqgVYQI',
    ],
    [
      'node-ytpl/userPage.html',
      ['header', 'c4TabbedHeaderRenderer', 'channelId'],
      'UCqwGaUvq_l0RKszeHhZ5leA',
    ],
    ['node-ytpl/notexistspage.html', ['alerts', 0, 'alertRenderer', 'type'], 'ERROR'],
  ] as const)('%s', (file, path, value) => {
    const data = extractInitialData(capture(file));
    expect(data).not.toBeNull();
    expect(dig(data, ...path)).toBe(value);
  });

  it.each([
    'pytube/2lAe1cqCOXo.embed.html',
    'youtube-transcript-api/youtube_consent_page.html.static',
    'youtube-transcript-api/youtube_too_many_requests.html.static',
    'node-ytpl/secondpage_01.html',
  ])('finds none in %s', (file) => {
    expect(extractInitialData(capture(file))).toBeNull();
  });

  it('finds other assigned objects the same way (2020 window["ytInitialPlayerResponse"])', () => {
    const player = extractAssignedJson(
      capture('node-ytdl-core/regular.watch.html'),
      'ytInitialPlayerResponse',
    );
    expect(dig(player, 'videoDetails', 'videoId')).toBe('_HSylqgVYQI');
    expect(dig(player, 'videoDetails', 'author')).toBe('FlippyCat');
  });
});

describe('extractAssignedJson on forms the captures do not show', () => {
  const wrap = (script: string) => `<html><body><script>${script}</script><p>{not json}</p></body></html>`;

  it('reads window.name = {…} and stops at the matching brace, not at braces inside strings', () => {
    const html = wrap('window.ytInitialData = {"a":"} { \\" }","b":[1,{"c":2}]};var other = {"x":1};');
    expect(extractInitialData(html)).toEqual({ a: '} { " }', b: [1, { c: 2 }] });
  });

  it('reads a JS string literal with \\x and \\u escapes (mobile pages)', () => {
    const html = wrap("var ytInitialData = '\\x7b\\x22a\\x22:\\x22caf\\u00e9\\x22,\\x22b\\x22:[1,2]\\x7d';");
    expect(extractInitialData(html)).toEqual({ a: 'café', b: [1, 2] });
  });

  it("reads JSON.parse('…')", () => {
    expect(extractInitialData(wrap('ytInitialData = JSON.parse(\'{"k":"v"}\');'))).toEqual({ k: 'v' });
  });

  it('skips mentions that are not assignments and assignments that do not parse', () => {
    const html = wrap(
      'if (window.ytInitialData == null) {} f(a.ytInitialData); var ytInitialData = {broken; ' +
        'window["ytInitialData"] = {"ok":true};',
    );
    expect(extractInitialData(html)).toEqual({ ok: true });
  });

  it('gives null for a truncated page and for a non-object value', () => {
    expect(extractInitialData(wrap('var ytInitialData = {"a":{"b":1}'))).toBeNull();
    expect(extractInitialData(wrap('var ytInitialData = [1,2];'))).toBeNull();
    expect(extractInitialData('')).toBeNull();
  });

  it('jsonEnd counts brackets outside strings only', () => {
    const text = 'x={"a":"]}","b":[{}]}tail';
    expect(text.slice(2, jsonEnd(text, 2))).toBe('{"a":"]}","b":[{}]}');
    expect(jsonEnd(text, 0)).toBe(-1);
    expect(jsonEnd('{"open":', 0)).toBe(-1);
  });
});

describe('extractYtcfg', () => {
  it('merges the ytcfg.set calls of a 2023 channel page served in French', () => {
    const cfg = extractYtcfg(capture('pytube/channel-UCs6nmQViDpUw0nuIx9c_WvA-videos.html'));
    expect(cfg).toMatchObject({
      apiKey: 'AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8',
      clientName: 'WEB',
      clientVersion: '2.20230509.07.00',
      visitorData: 'CgtXYlB2TVJvUjZHVSiKjvKiBg%3D%3D',
      hl: 'fr',
      gl: 'FR',
    });
    expect(dig(cfg.context, 'client', 'clientName')).toBe('WEB');
  });

  it('reads the embedded player client of an embed page', () => {
    expect(extractYtcfg(capture('pytube/2lAe1cqCOXo.embed.html'))).toMatchObject({
      apiKey: 'AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8',
      clientName: 'WEB_EMBEDDED_PLAYER',
      clientVersion: '1.20230507.00.00',
      hl: 'en',
      gl: 'FR',
    });
  });

  it('reads a 2020 page (German), whose values sit in INNERTUBE_CONTEXT', () => {
    expect(extractYtcfg(capture('node-ytpl/userPage.html'))).toMatchObject({
      apiKey: 'AIzaSyAO_FJ2SlqU8Q4STEHLGCilw_Y9_11qcW8',
      clientName: 'WEB',
      clientVersion: '2.20201201.03.01',
      visitorData: 'CgtnVWFkakhjNl9HdyiqqZ3-BQ%3D%3D',
      hl: 'de',
      gl: 'DE',
    });
  });

  it('rejects the placeholders a capture was scrubbed with', () => {
    const cfg = extractYtcfg(capture('node-ytpl/firstpage_01.html'));
    expect(cfg.apiKey).toBeNull(); // "<apikey>"
    expect(cfg.clientVersion).toBeNull(); // "<client_version>"
    expect(cfg.hl).toBe('en');
  });

  it.each([
    'youtube-transcript-api/youtube_consent_page.html.static',
    'youtube-transcript-api/youtube_too_many_requests.html.static',
  ])('finds nothing on %s', (file) => {
    expect(extractYtcfg(capture(file))).toEqual({
      apiKey: null,
      clientName: null,
      clientVersion: null,
      visitorData: null,
      hl: null,
      gl: null,
      context: null,
    });
  });

  it('falls back to a plain search for the key when no ytcfg.set parses', () => {
    const cfg = extractYtcfg(
      '<script>ytcfg.set({"INNERTUBE_API_KEY": \'x\'}); "INNERTUBE_API_KEY":"AIzaSyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"</script>',
    );
    expect(cfg.apiKey).toBe('AIzaSyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  });
});

describe('initialDataFromPbj', () => {
  it.each([
    ['node-ytdl-core/regular.watch.json', '_HSylqgVYQI'],
    ['node-ytdl-core/live-future.watch.json', 'VIBFo3Ti5vQ'],
    ['node-ytdl-core/non-existent.watch.json', '99999999999'],
  ])('takes the response part of %s', (file, id) => {
    expect(
      dig(initialDataFromPbj(captureJson(file)), 'currentVideoEndpoint', 'watchEndpoint', 'videoId'),
    ).toBe(id);
  });

  it('gives null when no part has a response', () => {
    expect(initialDataFromPbj([{ page: 'watch' }])).toBeNull();
    expect(initialDataFromPbj('nope')).toBeNull();
  });
});

describe('errorAlert', () => {
  it('reads the ERROR alert of the playlist-not-found page', () => {
    expect(errorAlert(extractInitialData(capture('node-ytpl/notexistspage.html')))).toBe(
      'The playlist does not exist.',
    );
  });

  it('ignores pages without one and alerts that are not errors', () => {
    expect(errorAlert(extractInitialData(capture('node-ytpl/firstpage_04.html')))).toBeNull();
    const info = {
      alerts: [
        { alertWithButtonRenderer: { type: 'INFO', text: { simpleText: 'Unavailable videos are hidden' } } },
      ],
    };
    expect(errorAlert(info)).toBeNull();
  });
});
