// What every client command gets: parsed options, the output mode, and an SDK client whose server
// and key come from --base-url/--api-key, else UNFURL_API_URL/UNFURL_API_KEY, else the saved login.
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { Unfurl, UnfurlError } from '@unfurl/sdk';
import { configPath, readConfig, type SavedConfig } from './config-store.js';
import { UsageError } from './exit-codes.js';
import type { Output } from './output.js';
import { type Progress, progressBar } from './progress.js';
import { closest } from './suggest.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

type Options = NonNullable<ParseArgsConfig['options']>;

export const GLOBAL_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export interface CommandSpec {
  name: string;
  /** One line for `unfurl --help`. */
  summary: string;
  /** The argument part of the usage line, e.g. `URL [--limit N]`. */
  usage: string;
  /** Option lines for `unfurl <command> --help`. */
  details?: string;
  options: Options;
  /** How many positional arguments it takes: [min, max]. */
  positionals: [number, number];
  run(ctx: CommandContext): Promise<number>;
}

export interface CommandContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  output: Output;
  env: NodeJS.ProcessEnv;
  saved: SavedConfig;
  configFile: string;
  baseUrl: string;
  /** The key in effect, or null when none is configured. */
  apiKey: string | null;
  /** A client; `requireKey` makes a missing key an auth failure (exit 3) before any request. */
  client(opts?: { requireKey?: boolean }): Unfurl;
  progress(): Progress;
  /** Aborts on Ctrl-C. */
  signal: AbortSignal;
  string(name: string): string | undefined;
  /** An integer option within bounds, or undefined when not given. */
  int(name: string, min: number, max: number): number | undefined;
}

/** parseArgs' complaint in our words, with the nearest known option for one it does not know. */
function optionError(err: Error & { code?: string }, options: Options): string {
  const unknown = /Unknown option '([^']+)'/.exec(err.message)?.[1];
  if (err.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || !unknown) return err.message;
  const names = Object.entries(options).flatMap(([name, o]) => [
    `--${name}`,
    ...(o.short ? [`-${o.short}`] : []),
  ]);
  const guess = closest(unknown, names);
  return `unknown option ${unknown}${guess ? ` (did you mean ${guess}?)` : ''}`;
}

export function usageLine(spec: CommandSpec) {
  return `usage: unfurl ${spec.name} ${spec.usage}`.trimEnd();
}

export function buildContext(
  spec: CommandSpec,
  argv: string[],
  env: NodeJS.ProcessEnv,
  streams: { out: NodeJS.WriteStream; err: NodeJS.WriteStream },
  signal: AbortSignal,
): CommandContext {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...GLOBAL_OPTIONS, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(
      optionError(err as Error & { code?: string }, { ...GLOBAL_OPTIONS, ...spec.options }),
    );
  }
  const values = parsed.values as CommandContext['values'];
  const positionals = parsed.positionals;
  const json = values.json === true;
  const output: Output = { json, out: streams.out, err: streams.err };
  const configFile = configPath(env);
  const saved = values.help ? {} : readConfig(configFile);
  const str = (name: string) => {
    const v = values[name];
    return typeof v === 'string' ? v : undefined;
  };
  const baseUrl = (str('base-url') || env.UNFURL_API_URL || saved.baseUrl || DEFAULT_BASE_URL).trim();
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new UsageError(`--base-url: "${baseUrl}" is not an http(s) URL`);
  }
  const apiKey = str('api-key') || env.UNFURL_API_KEY || saved.apiKey || null;
  return {
    values,
    positionals,
    output,
    env,
    saved,
    configFile,
    baseUrl,
    apiKey,
    signal,
    client(opts = {}) {
      if (opts.requireKey && !apiKey) {
        throw new UnfurlError({
          code: 'unauthorized',
          status: 0,
          message:
            'No API key: run `unfurl login` (or `unfurl register`), or pass --api-key / set UNFURL_API_KEY',
        });
      }
      return new Unfurl({ baseUrl, apiKey, headers: { 'user-agent': 'unfurl-cli/0.1.0' } });
    },
    progress: () => progressBar(streams.err, !json),
    string: str,
    int(name, min, max) {
      const raw = str(name);
      if (raw === undefined) return undefined;
      if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
        throw new UsageError(`--${name}: expected an integer from ${min} to ${max}, got "${raw}"`);
      }
      return Number(raw);
    },
  };
}
