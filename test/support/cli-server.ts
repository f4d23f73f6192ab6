// Setup for tests of the built `unfurl` binary: the client built, a client test server, a temp home, users.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ensureClientBuilt } from '../cli-client/binary.js';
import { type ClientTestServer, startClientTestServer } from '../sdk/server.js';
import { uniqueEmail } from './app.js';
import { type CliResult, runCli } from './cli.js';

export const PASSWORD = 'correct horse battery';

/** One user of the CLI: a fresh config dir, the server given by UNFURL_API_URL. */
export interface CliUser {
  dir: string;
  env: { XDG_CONFIG_HOME: string; UNFURL_API_URL: string };
  configFile: string;
  /** The config file the CLI saved. */
  saved(): Record<string, unknown>;
  run(...args: string[]): Promise<CliResult>;
}

/** The client test server (its fields set in beforeAll), with a temp home and users of it. */
export interface CliServer extends ClientTestServer {
  /** A temp dir for the file's config dirs, removed in afterAll. */
  home: string;
  user(): CliUser;
  /** A user who ran `unfurl register` (e-mail tagged with the file's tag, PASSWORD). */
  registered(): Promise<CliUser & { email: string }>;
}

/** Registers the hooks of the file that calls it; `tag` names its temp home and its users' e-mails. */
export function useCliServer(tag: string): CliServer {
  const cli = {} as CliServer;
  beforeAll(async () => {
    await ensureClientBuilt();
    Object.assign(cli, await startClientTestServer());
    cli.home = fs.mkdtempSync(path.join(os.tmpdir(), `unfurl-${tag}-`));
  }, 300_000);
  afterAll(async () => {
    await cli.close?.();
    if (cli.home) fs.rmSync(cli.home, { recursive: true, force: true });
  });
  cli.user = () => {
    const dir = fs.mkdtempSync(path.join(cli.home, 'cfg-'));
    const env = { XDG_CONFIG_HOME: dir, UNFURL_API_URL: cli.url };
    const configFile = path.join(dir, 'unfurl', 'config.json');
    return {
      dir,
      env,
      configFile,
      saved: () => JSON.parse(fs.readFileSync(configFile, 'utf8')) as Record<string, unknown>,
      run: (...args: string[]) => runCli(args, env, 60_000),
    };
  };
  cli.registered = async () => {
    const u = cli.user();
    const email = uniqueEmail(tag);
    const r = await u.run('register', '--email', email, '--password', PASSWORD);
    expect(r.code, r.stderr).toBe(0);
    return { ...u, email };
  };
  return cli;
}
