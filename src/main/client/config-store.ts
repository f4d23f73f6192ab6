// The client's saved login: $XDG_CONFIG_HOME/unfurl/config.json (else ~/.config/unfurl/config.json),
// readable by its owner only (0600, directory 0700), since it holds an API key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SavedConfig {
  baseUrl?: string;
  apiKey?: string;
  email?: string;
  keyId?: string;
  /** The key was made for this machine by `unfurl login`, so `unfurl logout` revokes it. */
  keyMadeByLogin?: boolean;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.config');
  return path.join(base, 'unfurl', 'config.json');
}

export function readConfig(file = configPath()): SavedConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as SavedConfig) : {};
  } catch {
    throw new Error(`${file} is not valid JSON: fix or delete it, then run \`unfurl login\` again`);
  }
}

export function writeConfig(config: SavedConfig, file = configPath()): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written beside and renamed, so a crash never leaves half a file; the mode is set before the key lands.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}
