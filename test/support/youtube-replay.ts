// A loopback stand-in for the video-sharing platform that replays the real captures of
// ../shared/fixtures/youtube/: /youtubei/v1/player answers per video and client, timedtext bodies,
// watch pages (with the EU consent interstitial on demand) and /next. Tests point
// UNFURL_UPSTREAM_YOUTUBE at it. Also a "blocked exit": the bot check and the reCAPTCHA page.
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { type Loopback, startServer } from './loopback.js';
import { CAPTURES as CAPTURE_DIR } from './youtube-captures.js';

const files = new Map<string, Buffer>();
/** A capture's bytes (read once per process). */
export function youtubeFixture(name: string): Buffer {
  let body = files.get(name);
  if (!body) {
    body = fs.readFileSync(path.join(CAPTURE_DIR, name));
    files.set(name, body);
  }
  return body;
}
export const youtubeJson = (name: string): unknown => JSON.parse(youtubeFixture(name).toString('utf8'));
export const youtubeText = (name: string): string => youtubeFixture(name).toString('utf8');

const YTA = 'youtube-transcript-api';
export const CAPTURES = {
  playerOk: `${YTA}/youtube.innertube.json.static`,
  /** A second ANDROID capture of the same video (other user agent): stands in for the fallback client. */
  playerOkAgain: `${YTA}/youtube_altered_user_agent.innertube.json.static`,
  playerPoToken: `${YTA}/youtube_po_token_required.innertube.json.static`,
  playerAge: `${YTA}/youtube_age_restricted.innertube.json.static`,
  playerNoCaptions: `${YTA}/youtube_transcripts_disabled.innertube.json.static`,
  playerBotCheck: `${YTA}/youtube_request_blocked.innertube.json.static`,
  playerUnavailable: `${YTA}/youtube_video_unavailable.innertube.json.static`,
  transcriptXml: `${YTA}/transcript.xml.static`,
  watchPage: `${YTA}/youtube.html.static`,
  consentPage: `${YTA}/youtube_consent_page.html.static`,
  recaptchaPage: `${YTA}/youtube_too_many_requests.html.static`,
} as const;

/** videoId → player capture per client ('*' = any client). Unknown ids answer "unavailable". */
export const DEFAULT_PLAYERS: Record<string, Record<string, string>> = {
  GJLlxj_dtq8: { ANDROID: CAPTURES.playerOk, IOS: CAPTURES.playerOkAgain, '*': CAPTURES.playerOk },
  Njp5uhTorCo: { '*': CAPTURES.playerAge },
  dsMFmonKDD4: { '*': CAPTURES.playerNoCaptions },
  '2lAe1cqCOXo': { '*': 'pytube/2lAe1cqCOXo.player.json' },
  WXxV9g7lsFE: { '*': 'pytube/WXxV9g7lsFE.player.json' },
  '5YceQ8YqYMc': { '*': 'pytube/5YceQ8YqYMc.player.json' },
  irauhITDrsE: { '*': 'pytube/irauhITDrsE.player.json' },
  m8uHb5jIGN8: { '*': 'pytube/m8uHb5jIGN8.player.json' },
};

/** videoId → watch-page capture. Unknown ids answer 404. */
export const DEFAULT_WATCH: Record<string, string> = {
  GJLlxj_dtq8: CAPTURES.watchPage,
  '2lAe1cqCOXo': 'pytube/2lAe1cqCOXo.watch.html',
  WXxV9g7lsFE: 'pytube/WXxV9g7lsFE.watch.html',
  '5YceQ8YqYMc': 'pytube/5YceQ8YqYMc.watch.html',
  irauhITDrsE: 'pytube/irauhITDrsE.watch.html',
  m8uHb5jIGN8: 'pytube/m8uHb5jIGN8.watch.html',
  _HSylqgVYQI: 'node-ytdl-core/regular.watch.html',
  LuZu9N53Vd0: 'node-ytdl-core/age-restricted.watch.html',
  '5qap5aO4i9A': 'node-ytdl-core/live-now.watch.html',
  TceijYjxdrQ: 'node-ytdl-core/longest-upload.watch.html',
};

export interface ReplayRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** /player and /next: the client named in the body's context. */
  client?: string;
  videoId?: string;
}

export interface YouTubeReplayOptions {
  players?: Record<string, Record<string, string>>;
  watch?: Record<string, string>;
  /** A timedtext body for a request; undefined → the transcript.xml capture, '' → an empty body. */
  timedtext?(query: URLSearchParams): string | undefined;
  /** Serve the consent page at /watch until the cookie CONSENT=YES+<its v value> comes. */
  consent?: boolean;
}

export interface YouTubeReplay extends Loopback {
  requests: ReplayRequest[];
  count(pathname: string): number;
}

const CONSENT_V = /name="v" value="([^"]+)"/.exec(youtubeText(CAPTURES.consentPage))?.[1] ?? '';

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** The ytInitialData of a watch capture: what /next answers for that video (the same shape). */
function initialData(html: string): string | null {
  const start = html.indexOf('var ytInitialData = ');
  if (start < 0) return null;
  const from = start + 'var ytInitialData = '.length;
  const end = html.indexOf(';</script>', from);
  return end < 0 ? null : html.slice(from, end);
}

export async function startYouTubeReplay(options: YouTubeReplayOptions = {}): Promise<YouTubeReplay> {
  const players = { ...DEFAULT_PLAYERS, ...options.players };
  const watch = { ...DEFAULT_WATCH, ...options.watch };
  const requests: ReplayRequest[] = [];
  const server = await startServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://replay');
    const entry: ReplayRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    };
    requests.push(entry);
    const send = (status: number, type: string, body: string | Buffer) =>
      res.writeHead(status, { 'content-type': type }).end(body);
    if (req.method === 'POST' && url.pathname.startsWith('/youtubei/v1/')) {
      const body = JSON.parse((await readBody(req)) || '{}') as {
        videoId?: string;
        context?: { client?: { clientName?: string } };
      };
      entry.client = body.context?.client?.clientName;
      entry.videoId = body.videoId;
      if (url.pathname === '/youtubei/v1/player') {
        const byClient = players[body.videoId ?? ''];
        const file = byClient ? (byClient[entry.client ?? ''] ?? byClient['*']) : CAPTURES.playerUnavailable;
        return send(200, 'application/json', youtubeFixture(file ?? CAPTURES.playerUnavailable));
      }
      if (url.pathname === '/youtubei/v1/next') {
        const file = watch[body.videoId ?? ''];
        const data = file ? initialData(youtubeText(file)) : null;
        return data ? send(200, 'application/json', data) : send(404, 'application/json', '{}');
      }
      return send(404, 'application/json', '{"error":{"code":404}}');
    }
    if (url.pathname === '/api/timedtext') {
      const body = options.timedtext?.(url.searchParams);
      return send(200, 'text/xml; charset=UTF-8', body ?? youtubeFixture(CAPTURES.transcriptXml));
    }
    if (url.pathname === '/watch') {
      if (options.consent && !(req.headers.cookie ?? '').includes(`CONSENT=YES+${CONSENT_V}`)) {
        return send(200, 'text/html; charset=utf-8', youtubeFixture(CAPTURES.consentPage));
      }
      const file = watch[url.searchParams.get('v') ?? ''];
      return file
        ? send(200, 'text/html; charset=utf-8', youtubeFixture(file))
        : send(404, 'text/html', '<html><body>404</body></html>');
    }
    send(404, 'text/plain', 'not found');
  });
  return {
    ...server,
    requests,
    count: (pathname) => requests.filter((r) => r.path === pathname).length,
  };
}

/** An exit the platform has blocked: the bot check for innertube calls, the reCAPTCHA page otherwise. */
export async function startBlockedYouTube(): Promise<YouTubeReplay> {
  const requests: ReplayRequest[] = [];
  const server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://blocked');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
    });
    req.resume();
    if (url.pathname.startsWith('/youtubei/')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(youtubeFixture(CAPTURES.playerBotCheck));
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end(youtubeFixture(CAPTURES.recaptchaPage));
    }
  });
  return { ...server, requests, count: (p) => requests.filter((r) => r.path === p).length };
}
