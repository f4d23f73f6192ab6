// Talking to the Unfurl API from the dashboard: the session token (sessionStorage, so it ends with
// the tab), JSON calls, and one place that notices an expired session.
const SESSION_KEY = 'unfurl.session';

export const session = {
  /** {token, email, accountId, expiresAt} while the session is valid, else null. */
  get() {
    try {
      const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
      if (s && typeof s.token === 'string' && s.expiresAt > Date.now()) return s;
    } catch {
      // unreadable: treated as signed out
    }
    return null;
  },
  set(value) {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(value));
  },
  clear() {
    sessionStorage.removeItem(SESSION_KEY);
  },
};

export class ApiError extends Error {
  constructor(status, body) {
    const message = body && typeof body === 'object' && body.message ? body.message : `HTTP ${status}`;
    super(message);
    this.status = status;
    this.code = body && typeof body === 'object' ? body.error : undefined;
    this.body = body;
  }
}

let onSessionLost = () => {};
/** Called when the API refuses the session token (expired or revoked). */
export function whenSessionLost(fn) {
  onSessionLost = fn;
}

/**
 * One HTTP request. `token`: undefined uses the session, null sends no Authorization header.
 * Answers {status, ok, headers, body (parsed JSON or text), text, ms}; never throws for HTTP errors.
 */
export async function request(method, path, { query, body, token } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  }
  const headers = { accept: 'application/json' };
  const bearer = token === undefined ? session.get()?.token : token;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const res = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return {
    status: res.status,
    statusText: res.statusText,
    ok: res.ok,
    headers: res.headers,
    body: parsed,
    text,
    ms: performance.now() - started,
    url,
  };
}

/** A JSON call with the session token; throws ApiError on an error answer. */
export async function call(method, path, options = {}) {
  const res = await request(method, path, options);
  if (res.status === 401 && options.token === undefined && session.get()) onSessionLost();
  if (!res.ok) throw new ApiError(res.status, res.body);
  return res.body;
}
