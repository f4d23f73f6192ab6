// Tests that need a real headless Chromium. Under CI=true a missing Chromium fails them (DESIGN §10);
// elsewhere they are skipped, saying why.
import fs from 'node:fs';
import { describe, it } from 'vitest';

export const CHROMIUM_PATH = process.env.UNFURL_CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM_PATH);

export function describeWithChromium(name: string, body: () => void): void {
  if (hasChromium) {
    describe(name, body);
  } else if (process.env.CI === 'true') {
    describe(name, () => {
      it('has Chromium to run on', () => {
        throw new Error(`CI=true and there is no Chromium at ${CHROMIUM_PATH}`);
      });
      body();
    });
  } else {
    describe.skip(`${name} (skipped: no Chromium at ${CHROMIUM_PATH}; CI=true makes this a failure)`, body);
  }
}
