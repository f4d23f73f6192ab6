// Every operation the client calls, in one table: the method and the path as /openapi.json writes it
// ({name} for path parameters). Client methods reach the API only through these names, and a test
// checks this table against the server's /openapi.json both ways, so the two cannot drift apart.

export const routes = {
  register: { method: 'POST', path: '/v1/auth/register' },
  login: { method: 'POST', path: '/v1/auth/login' },
  logout: { method: 'POST', path: '/v1/auth/logout' },
  listSessions: { method: 'GET', path: '/v1/auth/sessions' },
  revokeSession: { method: 'DELETE', path: '/v1/auth/sessions/{session_id}' },
  changePassword: { method: 'POST', path: '/v1/auth/password' },
  createKey: { method: 'POST', path: '/v1/keys/create' },
  listKeys: { method: 'GET', path: '/v1/keys' },
  revokeKey: { method: 'DELETE', path: '/v1/keys/{key_id}' },
  account: { method: 'GET', path: '/v1/account' },
  usage: { method: 'GET', path: '/v1/account/usage' },
  usageSummary: { method: 'GET', path: '/v1/account/usage/summary' },
  rotateWebhookSecret: { method: 'POST', path: '/v1/account/webhook-secret/rotate' },
  me: { method: 'GET', path: '/v1/me' },
  packages: { method: 'GET', path: '/v1/credits/packages' },
  purchase: { method: 'POST', path: '/v1/credits/purchase' },
  listJobs: { method: 'GET', path: '/v1/jobs' },
  getJob: { method: 'GET', path: '/v1/jobs/{jobId}' },
  cancelJob: { method: 'POST', path: '/v1/jobs/{jobId}/cancel' },
  transcript: { method: 'GET', path: '/v1/transcript' },
  transcriptPoll: { method: 'GET', path: '/v1/transcript/{jobId}' },
  vidsiteTranscript: { method: 'GET', path: '/v1/vidsite/transcript' },
  translate: { method: 'GET', path: '/v1/vidsite/transcript/translate' },
  metadata: { method: 'GET', path: '/v1/metadata' },
  playlist: { method: 'GET', path: '/v1/vidsite/playlist' },
  search: { method: 'GET', path: '/v1/vidsite/search' },
  video: { method: 'GET', path: '/v1/vidsite/video' },
  channel: { method: 'GET', path: '/v1/vidsite/channel' },
  comments: { method: 'GET', path: '/v1/vidsite/comments' },
  channelVideos: { method: 'GET', path: '/v1/vidsite/channel/videos' },
  playlistVideos: { method: 'GET', path: '/v1/vidsite/playlist/videos' },
  transcriptBatch: { method: 'POST', path: '/v1/vidsite/transcript/batch' },
  videoBatch: { method: 'POST', path: '/v1/vidsite/video/batch' },
  batchPoll: { method: 'GET', path: '/v1/vidsite/batch/{jobId}' },
  microblogPost: { method: 'GET', path: '/v1/microblog/post' },
  scrape: { method: 'GET', path: '/v1/web/scrape' },
  map: { method: 'GET', path: '/v1/web/map' },
  crawl: { method: 'POST', path: '/v1/web/crawl' },
  crawlPoll: { method: 'GET', path: '/v1/web/crawl/{jobId}' },
  ocr: { method: 'POST', path: '/v1/video/ocr' },
  ocrPoll: { method: 'GET', path: '/v1/video/ocr/{jobId}' },
  describe: { method: 'POST', path: '/v1/video/describe' },
  describePoll: { method: 'GET', path: '/v1/video/describe/{jobId}' },
  extract: { method: 'POST', path: '/v1/extract' },
  extractPoll: { method: 'GET', path: '/v1/extract/{jobId}' },
  createMonitor: { method: 'POST', path: '/v1/monitors' },
  listMonitors: { method: 'GET', path: '/v1/monitors' },
  getMonitor: { method: 'GET', path: '/v1/monitors/{id}' },
  updateMonitor: { method: 'PATCH', path: '/v1/monitors/{id}' },
  deleteMonitor: { method: 'DELETE', path: '/v1/monitors/{id}' },
  checkMonitor: { method: 'POST', path: '/v1/monitors/{id}/check' },
  monitorEvents: { method: 'GET', path: '/v1/monitors/{id}/events' },
  monitorFeed: { method: 'GET', path: '/v1/monitors/{id}/feed.atom' },
  health: { method: 'GET', path: '/health' },
  ready: { method: 'GET', path: '/ready' },
} as const satisfies Record<string, { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string }>;

export type RouteName = keyof typeof routes;

/** Where each job kind is polled (DESIGN §4); a kind not listed here is polled at getJob. */
export const pollRouteOfKind = {
  transcript: 'transcriptPoll',
  transcript_batch: 'batchPoll',
  video_batch: 'batchPoll',
  ocr: 'ocrPoll',
  describe: 'describePoll',
  extract: 'extractPoll',
  crawl: 'crawlPoll',
} as const satisfies Record<string, RouteName>;

/** Kinds whose poll answer is a slice of results from `?skip=`, with `next` while more remain. */
export const pagedKinds: ReadonlySet<string> = new Set(['crawl', 'transcript_batch', 'video_batch']);

/** The path of a route with its `{name}` parameters filled in (URL-encoded). */
export function fillPath(name: RouteName, params: Record<string, string> = {}): string {
  return routes[name].path.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = params[key];
    if (value === undefined || value === '') throw new TypeError(`${name}: missing path parameter ${key}`);
    return encodeURIComponent(value);
  });
}
