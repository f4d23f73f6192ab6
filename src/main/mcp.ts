// `unfurl mcp`: an MCP server on stdio for LLM agents, calling an Unfurl server over HTTP with the
// key in UNFURL_API_KEY, else the one `unfurl login`/`register` saved (UNFURL_API_URL names the
// server, else the saved one, else http://127.0.0.1:8080, with or without /v1) — as the other client
// commands find them. Nothing but MCP messages goes to stdout; problems go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { networkApi, parseBody } from '../mcp/api.js';
import { createMcpServer, toolsetOnce } from '../mcp/server.js';
import type { OpenApiDocument } from '../mcp/tools.js';
import { configPath, readConfig, type SavedConfig } from './client/config-store.js';

const DEFAULT_API_URL = 'http://127.0.0.1:8080';

export async function mcp(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let saved: SavedConfig;
  try {
    saved = readConfig(configPath(env));
  } catch (err) {
    console.error(`unfurl mcp: ${(err as Error).message}`);
    return 2;
  }
  const apiKey = env.UNFURL_API_KEY?.trim() || saved.apiKey?.trim();
  if (!apiKey) {
    console.error(
      'unfurl mcp: no API key: run `unfurl login` (or `unfurl register`), or set UNFURL_API_KEY ' +
        '(and UNFURL_API_URL to the server)',
    );
    return 2;
  }
  const baseUrl = (env.UNFURL_API_URL?.trim() || saved.baseUrl?.trim() || DEFAULT_API_URL)
    .replace(/\/+$/, '')
    .replace(/\/v1$/, '');
  const openApi = async () => {
    const res = await fetch(`${baseUrl}/openapi.json`);
    if (!res.ok) throw new Error(`${baseUrl}/openapi.json answered ${res.status}`);
    return parseBody(await res.text()) as OpenApiDocument;
  };
  const server = createMcpServer({ api: networkApi(baseUrl, apiKey), tools: toolsetOnce(openApi) });
  await server.connect(new StdioServerTransport());
  // Runs until the client closes stdin.
  await new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
  });
  return 0;
}
