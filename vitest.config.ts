import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker keeps its loaded modules from one test file to the next: importing the app anew for
    // every file was about a fifth of the suite's time. Tests share no state through modules (each
    // builds its own app, store and servers), so isolation bought nothing.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
    reporters: ['default'],
  },
});
