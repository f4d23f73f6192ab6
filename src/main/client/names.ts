// The client command names, with no imports: cli.ts reads them to dispatch without loading the SDK,
// so `serve`, `worker`, `migrate` and `admin` never depend on packages/sdk being built.
export const CLIENT_COMMAND_NAMES = [
  'register',
  'login',
  'logout',
  'transcript',
  'video',
  'scrape',
  'map',
  'crawl',
  'ocr',
  'describe',
  'extract',
  'monitor',
  'jobs',
  'credits',
  'usage',
] as const;
