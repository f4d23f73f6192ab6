// How the MCP tools reach Unfurl: through its own HTTP API, so every tool call is authenticated,
// rate-limited, validated and charged exactly as the same request would be. `unfurl mcp` (stdio)
// calls a server over the network; `/mcp` on the server calls itself in-process.

export interface ApiCall {
  method: 'GET' | 'POST';
  /** A path with its parameters filled in, e.g. `/v1/transcript/job_…`. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** Aborts when the MCP call's client is gone: a request over the network is dropped. */
  signal?: AbortSignal;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

export type CallApi = (call: ApiCall) => Promise<ApiAnswer>;

/** The query string of a call: scalars as text, arrays repeated, undefined left out. */
export function queryString(query: Record<string, unknown> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      params.append(name, typeof one === 'object' ? JSON.stringify(one) : String(one));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The JSON of an answer body, or its text when it is not JSON. */
export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A CallApi over the network (the stdio server): `baseUrl` with or without `/v1`, the key as a bearer. */
export function networkApi(baseUrl: string, apiKey: string, fetchImpl: typeof fetch = fetch): CallApi {
  const origin = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return async ({ method, path, query, body, signal }) => {
    const res = await fetchImpl(`${origin}${path}${queryString(query)}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(signal && { signal }),
    });
    return { status: res.status, body: parseBody(await res.text()) };
  };
}
