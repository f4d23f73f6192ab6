// Who we say we are to the platform's player API, as data: one entry per client (its name, numeric id,
// version, user agent, device fields, extra headers), and the order the player chain tries them in.
// The platform refuses outdated versions and starts demanding proof-of-origin tokens from one client
// or another, so an operator can replace or amend this table without a release
// (UNFURL_YOUTUBE_CLIENTS); parseClientTable checks such a table and says what is wrong with it.

/** A JSON value as it may appear in a client's context fields. */
export type ContextValue = string | number | boolean;

export interface PlayerClient {
  /** Our name for the entry: the chain, the cache keys and the operator's table use it. */
  readonly name: string;
  /** context.client.clientName sent to the platform (the name, unless a variant of a known client). */
  readonly clientName: string;
  /** The numeric id sent as X-YouTube-Client-Name. */
  readonly id: number;
  readonly version: string;
  readonly userAgent: string;
  /** Extra fields of context.client (the device it says it runs on). */
  readonly context: Readonly<Record<string, ContextValue>>;
  /** context.thirdParty: the page an embedded player says it is embedded in; null for the others. */
  readonly thirdParty: Readonly<Record<string, ContextValue>> | null;
  /** Extra request headers (an API key, a referer). */
  readonly headers: Readonly<Record<string, string>>;
  /** Whether the account cookies of UNFURL_COOKIES_YOUTUBE go with this client's requests. */
  readonly cookies: boolean;
  /**
   * Whether its player request carries a proof-of-origin token bound to the video (and the visitor
   * data it was minted for) when a token source is configured; without one it is asked as it is.
   */
  readonly playerPoToken: boolean;
}

const CHROME_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/137.0.0.0 Safari/537.36';

const client = (
  name: string,
  id: number,
  version: string,
  userAgent: string,
  more: Partial<Pick<PlayerClient, 'context' | 'thirdParty' | 'headers' | 'cookies' | 'playerPoToken'>> = {},
): PlayerClient => ({
  name,
  clientName: name,
  id,
  version,
  userAgent,
  context: more.context ?? {},
  thirdParty: more.thirdParty ?? null,
  headers: more.headers ?? {},
  cookies: more.cookies ?? false,
  playerPoToken: more.playerPoToken ?? false,
});

// Versions and device strings as the maintained open-source clients sent them in mid-2026. The
// mobile apps and the visionOS app sign in with their own tokens, not browser cookies: the platform
// refuses (HTTP 400) or ignores cookies from them, so only the browser-like clients take cookies.
const BUILT_IN = {
  // The captured answers of the test replays were made with this version: kept until it is refused.
  ANDROID: client(
    'ANDROID',
    3,
    '20.10.38',
    'com.google.android.youtube/20.10.38 (Linux; U; Android 14) gzip',
    {
      context: { osName: 'Android', osVersion: '14', androidSdkVersion: 34 },
    },
  ),
  IOS: client(
    'IOS',
    5,
    '20.11.6',
    'com.google.ios.youtube/20.11.6 (iPhone16,2; U; CPU iOS 18_3_2 like Mac OS X;)',
    {
      context: {
        deviceMake: 'Apple',
        deviceModel: 'iPhone16,2',
        osName: 'iPhone',
        osVersion: '18.3.2.22D82',
      },
    },
  ),
  // No proof-of-origin token for the player, the streams or the captions; plain stream URLs. Refuses
  // videos made for kids (the next client takes those).
  VISIONOS: client(
    'VISIONOS',
    101,
    '1.02',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 15_7_3) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15',
    {
      context: {
        deviceMake: 'Apple',
        deviceModel: 'RealityDevice17,1',
        osName: 'visionOS',
        osVersion: '26.5.23O471',
      },
    },
  ),
  // The living-room app: no token for the player or captions, takes cookies; its stream URLs are
  // ciphered, so media comes from another client.
  TVHTML5: client(
    'TVHTML5',
    7,
    '7.20260707.07.00',
    'Mozilla/5.0 (ChromiumStylePlatform) Cobalt/25.lts.30.1034943-gold (unlike Gecko), Unknown_TV_Unknown_0/Unknown (Unknown, Unknown)',
    { cookies: true },
  ),
  // The player embedded in other sites: no token, takes cookies, and gets past some age gates. It
  // must say which page embeds it (any page off the platform will do); videos whose uploader turned
  // embedding off answer UNPLAYABLE here.
  WEB_EMBEDDED_PLAYER: client('WEB_EMBEDDED_PLAYER', 56, '2.20260708.00.00', CHROME_UA, {
    thirdParty: { embedUrl: 'https://example.org/' },
    cookies: true,
  }),
  // The mobile site: its player answer and captions come without a token (its streams need one).
  MWEB: client(
    'MWEB',
    2,
    '2.20260708.05.00',
    'Mozilla/5.0 (iPad; CPU OS 16_7_10 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1,gzip(gfe)',
    { cookies: true },
  ),
  // The desktop site: browse, next, search and the watch page. Its player wants a token (an operator
  // with a token provider may put it in the chain).
  WEB: client('WEB', 1, '2.20260623.01.00', CHROME_UA, { cookies: true, playerPoToken: true }),
  // Known but not in the default chain: its stream URLs answer 403 since August 2026.
  ANDROID_VR: client(
    'ANDROID_VR',
    28,
    '1.65.10',
    'com.google.android.apps.youtube.vr.oculus/1.65.10 (Linux; U; Android 12L; eureka-user Build/SQ3A.220605.009.A1) gzip',
    {
      context: {
        deviceMake: 'Oculus',
        deviceModel: 'Quest 3',
        androidSdkVersion: 32,
        osName: 'Android',
        osVersion: '12L',
      },
    },
  ),
} as const satisfies Record<string, PlayerClient>;

export type BuiltInClientName = keyof typeof BUILT_IN;

/** Every client we know by name: what an operator's table may name or amend. */
export const KNOWN_CLIENTS: Readonly<Record<BuiltInClientName, PlayerClient>> = BUILT_IN;

/**
 * The player chain when the operator sets none: the two mobile apps the captures were made with
 * (plain stream URLs), then the clients that currently answer captions and metadata without a
 * proof-of-origin token.
 */
export const DEFAULT_PLAYER_CLIENTS: readonly BuiltInClientName[] = [
  'ANDROID',
  'IOS',
  'VISIONOS',
  'TVHTML5',
  'WEB_EMBEDDED_PLAYER',
  'MWEB',
];

export const defaultPlayerChain = (): PlayerClient[] => DEFAULT_PLAYER_CLIENTS.map((n) => KNOWN_CLIENTS[n]);

/** What is wrong with an operator's client table (the message names the entry). */
export class ClientTableError extends Error {}

const NAME = /^[A-Za-z0-9_]{1,64}$/;
const VERSION = /^[A-Za-z0-9._-]{1,64}$/;
const PRINTABLE = /^[\x20-\x7e]+$/;
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
/** Headers the table may not set: each has its own field, or its own setting (cookies). */
const RESERVED_HEADERS = new Set([
  'cookie',
  'authorization',
  'host',
  'content-length',
  'content-type',
  'user-agent',
  'x-youtube-client-name',
  'x-youtube-client-version',
]);
const FIELDS = new Set([
  'name',
  'clientName',
  'id',
  'version',
  'userAgent',
  'context',
  'thirdParty',
  'headers',
  'cookies',
  'playerPoToken',
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function flatRecord(value: unknown, field: string): Record<string, ContextValue> {
  if (!isObject(value)) throw new ClientTableError(`${field} must be an object`);
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string' && typeof v !== 'boolean' && !(typeof v === 'number' && Number.isFinite(v))) {
      throw new ClientTableError(`${field}.${key} must be a string, a number or true/false`);
    }
  }
  return value as Record<string, ContextValue>;
}

function headerRecord(value: unknown): Record<string, string> {
  if (!isObject(value)) throw new ClientTableError('headers must be an object');
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!HEADER_NAME.test(key)) throw new ClientTableError(`headers: "${key}" is not a header name`);
    if (RESERVED_HEADERS.has(key.toLowerCase())) {
      throw new ClientTableError(`headers: ${key} cannot be set here (it has its own field or setting)`);
    }
    if (typeof v !== 'string' || !PRINTABLE.test(v)) {
      throw new ClientTableError(`headers.${key} must be a string of printable ASCII`);
    }
    out[key.toLowerCase()] = v;
  }
  return out;
}

/** One entry: a known client's name, a known client amended, or a whole new client. */
function entry(raw: unknown, known: Readonly<Record<string, PlayerClient>>): PlayerClient {
  const spec = typeof raw === 'string' ? { name: raw } : raw;
  if (!isObject(spec)) throw new ClientTableError('must be a client name or an object');
  for (const key of Object.keys(spec)) {
    if (!FIELDS.has(key)) {
      throw new ClientTableError(`unknown field "${key}" (fields: ${[...FIELDS].join(', ')})`);
    }
  }
  const { name, clientName } = spec;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new ClientTableError('name must be 1–64 letters, digits or _');
  }
  if (clientName !== undefined && (typeof clientName !== 'string' || !NAME.test(clientName))) {
    throw new ClientTableError('clientName must be 1–64 letters, digits or _');
  }
  // A new name may be a variant of a known client (its clientName): it starts from that one.
  const base = Object.hasOwn(known, name)
    ? known[name]
    : typeof clientName === 'string' && Object.hasOwn(known, clientName)
      ? known[clientName]
      : undefined;
  if (!base) {
    const missing = ['id', 'version', 'userAgent'].filter((f) => spec[f] === undefined);
    if (missing.length > 0) {
      throw new ClientTableError(
        `is not a known client (${Object.keys(known).join(', ')}), so it needs ${missing.join(', ')}`,
      );
    }
  }
  const { id, version, userAgent, cookies, playerPoToken } = spec;
  if (id !== undefined && !(typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= 9999)) {
    throw new ClientTableError('id must be a whole number from 1 to 9999');
  }
  if (version !== undefined && (typeof version !== 'string' || !VERSION.test(version))) {
    throw new ClientTableError('version must be 1–64 letters, digits, dots, _ or -');
  }
  if (
    userAgent !== undefined &&
    (typeof userAgent !== 'string' || userAgent.length > 512 || !PRINTABLE.test(userAgent))
  ) {
    throw new ClientTableError('userAgent must be 1–512 characters of printable ASCII');
  }
  if (cookies !== undefined && typeof cookies !== 'boolean') {
    throw new ClientTableError('cookies must be true or false');
  }
  if (playerPoToken !== undefined && typeof playerPoToken !== 'boolean') {
    throw new ClientTableError('playerPoToken must be true or false');
  }
  const context = spec.context === undefined ? {} : flatRecord(spec.context, 'context');
  for (const key of ['clientName', 'clientVersion']) {
    if (key in context) throw new ClientTableError(`context.${key} is set by the entry's own fields`);
  }
  const thirdParty =
    spec.thirdParty === undefined || spec.thirdParty === null
      ? undefined
      : flatRecord(spec.thirdParty, 'thirdParty');
  return {
    name,
    clientName: (clientName as string | undefined) ?? base?.clientName ?? name,
    id: (id as number | undefined) ?? base!.id,
    version: (version as string | undefined) ?? base!.version,
    userAgent: (userAgent as string | undefined) ?? base!.userAgent,
    // Amending a known client's device fields: the fields given replace those of the same name.
    context: { ...base?.context, ...context },
    thirdParty: spec.thirdParty === null ? null : (thirdParty ?? base?.thirdParty ?? null),
    headers: { ...base?.headers, ...(spec.headers === undefined ? {} : headerRecord(spec.headers)) },
    cookies: (cookies as boolean | undefined) ?? base?.cookies ?? false,
    playerPoToken: (playerPoToken as boolean | undefined) ?? base?.playerPoToken ?? false,
  };
}

/**
 * An operator's player chain (the parsed JSON of UNFURL_YOUTUBE_CLIENTS): an ordered, non-empty list
 * whose entries are a known client's name ("TVHTML5"), an object naming a known client with the
 * fields to change ({"name": "IOS", "version": "…"}), or a whole new client ({"name", "id",
 * "version", "userAgent", …}). Throws ClientTableError naming the entry and what is wrong.
 */
export function parseClientTable(
  value: unknown,
  known: Readonly<Record<string, PlayerClient>> = KNOWN_CLIENTS,
): PlayerClient[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ClientTableError('must be a non-empty JSON array of client entries');
  }
  if (value.length > 32) throw new ClientTableError(`has ${value.length} entries; at most 32 are tried`);
  const seen = new Set<string>();
  return value.map((raw, i) => {
    const label = isObject(raw) && typeof raw.name === 'string' ? ` (${raw.name.slice(0, 64)})` : '';
    try {
      const parsed = entry(raw, known);
      if (seen.has(parsed.name)) throw new ClientTableError('is named twice');
      seen.add(parsed.name);
      return parsed;
    } catch (err) {
      if (!(err instanceof ClientTableError)) throw err;
      const named = label || (typeof raw === 'string' ? ` (${raw.slice(0, 64)})` : '');
      throw new ClientTableError(`entry ${i + 1}${named}: ${err.message}`);
    }
  });
}

/** Every client by name: the known ones, with the chain's own entries in their place. */
export function clientsByName(chain: readonly PlayerClient[]): ReadonlyMap<string, PlayerClient> {
  const all = new Map<string, PlayerClient>(Object.entries(KNOWN_CLIENTS));
  for (const c of chain) all.set(c.name, c);
  return all;
}
