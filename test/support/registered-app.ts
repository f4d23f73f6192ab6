// A test file's in-process app with one registered account: started before its tests, closed after them.
import { afterAll, beforeAll } from 'vitest';
import { createTestApp, type TestApp } from './app.js';
import { closeTestApp } from './teardown.js';

/** Registers the file's hooks; `ready` gets the app and the account's API key once they are up. */
export function useRegisteredApp(ready: (stage: { t: TestApp; key: string }) => void): void {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await createTestApp();
    ready({ t, key: (await t.register()).apiKey });
  });
  afterAll(async () => closeTestApp(t));
}
