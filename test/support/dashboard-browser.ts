// The headless Chromium that the dashboard tests drive: one persistent context in a fresh user-data dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from './chromium.js';

export interface DashboardBrowser {
  context: BrowserContext;
  /** The tab the browser opened with. */
  page: Page;
  /** Closes the browser and removes its user-data dir. */
  close(): Promise<void>;
}

/** Launches Chromium (en-US) with its user data in a fresh temp dir named after `name`. */
export async function launchBrowser(
  name: string,
  viewport: { width: number; height: number },
): Promise<DashboardBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), `unfurl-dashboard-${name}-`));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport,
      locale: 'en-US',
    });
  } catch (err) {
    fs.rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
