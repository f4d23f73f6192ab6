// No Docker engine runs here, so the deployment files are checked for what can go wrong without one:
// every environment variable the Unfurl containers get is one src/config.ts reads, every command they
// run is a command of the real `unfurl` binary, the topology is 2 API + 2 workers on PostgreSQL and
// Redis, and the Dockerfile runs the package's bin as a non-root user.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configVariableNames, isConfigVariable, loadConfig } from '../../src/config.js';
import { repoRoot } from '../support/processes.js';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: Record<string, unknown> | string[];
  deploy?: { replicas?: number };
  ports?: string[];
}

const compose = parse(fs.readFileSync(path.join(repoRoot, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
};
const services = compose.services;
const ours = Object.entries(services).filter(([, s]) => s.build !== undefined || s.image === 'unfurl:latest');

const envOf = (s: Service): Record<string, string> => {
  const e = s.environment ?? {};
  if (Array.isArray(e))
    return Object.fromEntries(e.map((kv) => [kv.split('=')[0]!, kv.split('=').slice(1).join('=')]));
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v === null ? '' : String(v)]));
};
const commandOf = (s: Service) => (Array.isArray(s.command) ? s.command : (s.command ?? '').split(/\s+/));
/** `${NAME:-default}` → default (what the container gets when the operator sets nothing). */
const withDefaults = (value: string) => value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');

/** The server commands of the real binary, read from its own help text. */
function cliCommands(): string[] {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'help'], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return [...run.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!);
}

describe('compose.yaml', () => {
  it('runs our image as 2 API processes and 2 workers on PostgreSQL and Redis', () => {
    const role = (name: string) => commandOf(services[name]!)[0];
    const replicas = (s: Service) => s.deploy?.replicas ?? 1;
    const count = (cmd: string) =>
      ours.filter(([n]) => role(n) === cmd).reduce((sum, [, s]) => sum + replicas(s), 0);
    expect(count('serve')).toBe(2);
    expect(count('worker')).toBe(2);
    expect(count('migrate')).toBe(1);
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(services.redis?.image).toMatch(/^redis:/);
    // BullMQ loses jobs if Redis may evict keys.
    expect(commandOf(services.redis!).join(' ')).toContain('--maxmemory-policy noeviction');
    for (const [name, s] of ours) {
      const env = envOf(s);
      expect(withDefaults(env.DATABASE_URL ?? ''), name).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
      expect(env.REDIS_URL, name).toBe('redis://redis:6379');
      expect(env.UNFURL_PUBLIC_URL, name).toBeDefined();
    }
  });

  it('gives the Unfurl containers only variables that src/config.ts reads, with values it accepts', () => {
    const known = configVariableNames();
    expect(known).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'UNFURL_PUBLIC_URL', 'PORT']));
    expect(ours.length).toBeGreaterThanOrEqual(4);
    for (const [name, s] of ours) {
      const env = envOf(s);
      expect(Object.keys(env).length, name).toBeGreaterThan(0);
      for (const variable of Object.keys(env))
        expect(isConfigVariable(variable), `${name}: ${variable}`).toBe(true);
      // The values, with compose's defaults filled in, pass the configuration's own validation.
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, withDefaults(v)]));
      expect(() => loadConfig(resolved), name).not.toThrow();
    }
    // The check itself can fail: a misspelt name is refused.
    expect(isConfigVariable('UNFURL_RATE_LIMIT_RPSS')).toBe(false);
    expect(isConfigVariable('DATABSE_URL')).toBe(false);
    expect(isConfigVariable('UNFURL_UPSTREAM_YOUTUBE')).toBe(true);
  });

  it("runs only commands the real CLI has, and each service's dependencies exist", () => {
    const commands = cliCommands();
    expect(commands).toEqual(expect.arrayContaining(['serve', 'worker', 'migrate']));
    for (const [name, s] of ours) {
      const command = commandOf(s)[0]!;
      expect(commands, `${name} runs "${command}"`).toContain(command);
    }
    for (const [name, s] of Object.entries(services)) {
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      for (const dep of deps) expect(Object.keys(services), `${name} depends on ${dep}`).toContain(dep);
    }
  });
});

describe('Dockerfile', () => {
  const dockerfile = fs.readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };

  it('builds on node:24-bookworm-slim with the system tools, runs the bin as a non-root user, serve by default', () => {
    expect(dockerfile).toMatch(/^FROM node:24-bookworm-slim\b/m);
    for (const pkgName of [
      'ffmpeg',
      'tesseract-ocr',
      'tesseract-ocr-eng',
      'poppler-utils',
      'chromium',
      'fonts-dejavu-core',
    ])
      expect(dockerfile).toMatch(new RegExp(`\\s${pkgName}\\s`));
    expect(dockerfile).toMatch(/^USER node$/m);
    const entrypoint = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(dockerfile)![1]!) as string[];
    expect(entrypoint.slice(-2)).toEqual(['node', pkg.bin.unfurl]);
    expect(JSON.parse(/^CMD (.+)$/m.exec(dockerfile)![1]!)).toEqual(['serve']);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    // The dashboard is read from the source tree at run time (dashboardDir): the image must carry it.
    expect(dockerfile).toContain('src/http/dashboard/static');
  });

  it('sets only configuration variables', () => {
    const block = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)![1]!;
    const names = [...block.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(isConfigVariable(n), n).toBe(true);
  });
});
