// Web commands: scrape one page to Markdown, and crawl a site into a folder of Markdown files with a
// progress bar while the job runs.
import path from 'node:path';
import { type CrawlBody, pollRouteOfKind, UnfurlError } from '@unfurl/sdk';
import { creditsText } from '../../../billing/prices.js';
import type { CommandContext, CommandSpec } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { fields, line, printJson, withHint } from '../output.js';
import { PageWriter } from '../page-files.js';
import { answeredJobId, stopOnInterrupt, WAIT_HELP, WAIT_OPTIONS } from '../wait.js';
import { webUrl } from '../web-url.js';

const URL_HELP = `  URL is a web address; a bare domain (example.com, docs.example.com/guide) is taken as https://`;

/**
 * Whether jobs of `kind` have pages to write: those polled at the crawl's poll route, as the server
 * declares its poll routes' kinds (the SDK's pollRouteOfKind, generated from /openapi.json).
 */
export function hasCrawlPages(kind: string): boolean {
  return (pollRouteOfKind as Record<string, string | undefined>)[kind] === 'crawlPoll';
}

export const scrape: CommandSpec = {
  name: 'scrape',
  summary: 'a web page as Markdown',
  usage: 'URL [--no-links] [--lang LANG] [--render auto|always|never] [--meta]',
  details: `${URL_HELP}
  --no-links     links become plain text in the Markdown
  --lang LANG    preferred language, sent as Accept-Language
  --render MODE  headless browser: auto (default), always, never
  --meta         also print the title, URL, size and credits charged (on stderr: stdout stays Markdown)`,
  options: {
    'no-links': { type: 'boolean' },
    lang: { type: 'string' },
    render: { type: 'string' },
    meta: { type: 'boolean' },
  },
  positionals: [1, 1],
  async run(ctx) {
    const render = ctx.string('render');
    if (render !== undefined && !['auto', 'always', 'never'].includes(render)) {
      throw new UsageError('--render: one of auto, always, never');
    }
    const client = ctx.client({ requireKey: true });
    const page = await client.web.scrape(
      {
        url: webUrl(ctx.positionals[0]!),
        noLinks: ctx.values['no-links'] === true ? true : undefined,
        lang: ctx.string('lang'),
        render: render as 'auto' | undefined,
      },
      ctx,
    );
    const charged = client.lastCredits?.charged ?? null;
    if (ctx.output.json) {
      printJson(ctx.output, ctx.values.meta === true ? { ...page, creditsCharged: charged } : page);
      return 0;
    }
    if (ctx.values.meta === true) {
      const meta: [string, unknown][] = [
        ['title', page.name],
        ['url', page.url],
        ['description', page.description],
        ['characters', page.countCharacters],
        ['links', page.urls.length],
        ['credits', charged === null ? null : creditsText(charged)],
      ];
      fields({ ...ctx.output, out: ctx.output.err }, meta);
      ctx.output.err.write('\n');
    }
    ctx.output.out.write(page.content.endsWith('\n') ? page.content : `${page.content}\n`);
    return 0;
  },
};

export const map: CommandSpec = {
  name: 'map',
  summary: "a site's links (the page's own and its sitemaps'), one URL a line",
  usage: 'URL [--limit N] [--sitemap include|skip|only]',
  details: `${URL_HELP}
  --limit N        most URLs (1–10000, default 5000)
  --sitemap MODE   include (default): page links and sitemap URLs; skip: page links only;
                   only: sitemap URLs only`,
  options: { limit: { type: 'string' }, sitemap: { type: 'string' } },
  positionals: [1, 1],
  async run(ctx) {
    const sitemap = ctx.string('sitemap');
    if (sitemap !== undefined && !['include', 'skip', 'only'].includes(sitemap)) {
      throw new UsageError('--sitemap: one of include, skip, only');
    }
    const links = await ctx.client({ requireKey: true }).web.map(
      {
        url: webUrl(ctx.positionals[0]!),
        limit: ctx.int('limit', 1, 10_000),
        sitemap: sitemap as 'include' | undefined,
      },
      ctx,
    );
    if (ctx.output.json) printJson(ctx.output, links);
    else for (const url of links.urls) line(ctx.output, url);
    return 0;
  },
};

export const crawl: CommandSpec = {
  name: 'crawl',
  summary: 'crawl a site: every page written as a Markdown file into --out DIR',
  usage: 'URL [--out DIR] [--limit N] [--max-depth N] [--include RE]… [--exclude RE]… | --job ID [--out DIR]',
  details: `${URL_HELP}
  --out DIR           where the pages go (default ./unfurl-crawl-<job id>)
  --limit N           most pages (1–5000, default 100; costs 1 + pages)
  --max-depth N       most link hops from the start page (0–20, default 10)
  --include RE        only paths matching this regular expression (repeatable)
  --exclude RE        no path matching this regular expression (repeatable)
  --allow-subdomains  also follow links to subdomains
  --entire-domain     every path of the host, not only those under the start URL
  --job ID            no new crawl: write the pages of crawl ID (one started with --no-wait, or
                      any earlier one) into --out, waiting for it first if it still runs
${WAIT_HELP}`,
  options: {
    out: { type: 'string' },
    limit: { type: 'string' },
    'max-depth': { type: 'string' },
    include: { type: 'string', multiple: true },
    exclude: { type: 'string', multiple: true },
    'allow-subdomains': { type: 'boolean' },
    'entire-domain': { type: 'boolean' },
    job: { type: 'string' },
    ...WAIT_OPTIONS,
  },
  positionals: [0, 1],
  async run(ctx) {
    const existing = ctx.string('job');
    if (existing !== undefined && ctx.positionals.length) {
      throw new UsageError('--job ID takes no URL: the crawl has its own');
    }
    if (existing === undefined && ctx.positionals.length !== 1) {
      throw new UsageError('expected the URL to crawl (or --job ID)');
    }
    const client = ctx.client({ requireKey: true });
    let jobId: string;
    let startUrl: string;
    let limit: number | undefined;
    if (existing !== undefined) {
      const job = await client.jobs.get(existing, ctx);
      if (!hasCrawlPages(job.queue) || !job.url)
        throw new UsageError(`job ${existing} is a ${job.queue} job, not a crawl`);
      jobId = job.id;
      startUrl = job.url;
    } else {
      startUrl = webUrl(ctx.positionals[0]!);
      limit = ctx.int('limit', 1, 5000);
      const body: CrawlBody = {
        url: startUrl,
        limit,
        maxDepth: ctx.int('max-depth', 0, 20),
        includePaths: ctx.values.include as string[] | undefined,
        excludePaths: ctx.values.exclude as string[] | undefined,
        allowSubdomains: ctx.values['allow-subdomains'] === true ? true : undefined,
        entireDomain: ctx.values['entire-domain'] === true ? true : undefined,
      };
      ({ jobId } = await client.web.crawl(body, ctx).catch((err: unknown) => {
        // The server cuts a crawl to the pages the balance pays for, so a 402 means not even one page:
        // a smaller --limit would not help.
        if (err instanceof UnfurlError && (err.status === 402 || err.code === 'insufficient_credits')) {
          withHint(
            err,
            'a crawl needs at least 2 credits (1 + one page); a smaller balance than 1 + --limit crawls fewer pages',
          );
        }
        throw err;
      }));
      // A balance short of 1 + limit: the server cuts the crawl to the pages it pays for.
      const held = client.lastCredits?.held ?? null;
      const asked = limit ?? 100;
      if (held !== null && held > 0 && held < 1 + asked) {
        limit = held - 1;
        ctx.output.err.write(
          `the balance covers ${limit} page${limit === 1 ? '' : 's'}: crawling at most ${limit} (not ${asked}); buy credits for more\n`,
        );
      }
      if (answeredJobId(ctx, jobId)) {
        if (!ctx.output.json) {
          ctx.output.err.write(
            `\`unfurl crawl --job ${jobId}\` writes its pages as files (waiting for it to end)\n`,
          );
        }
        return 0;
      }
    }
    let startHost: string;
    try {
      startHost = new URL(startUrl).host;
    } catch {
      throw new UsageError(`"${startUrl}" is not a URL`);
    }
    const total = limit ?? (existing === undefined ? 100 : null);

    const timeoutS = ctx.int('timeout', 1, 86_400) ?? 600;
    const timer = AbortSignal.timeout(timeoutS * 1000);
    const out = path.resolve(ctx.string('out') ?? `unfurl-crawl-${jobId}`);
    const writer = new PageWriter(out, startHost);
    const progress = ctx.progress();
    const started = Date.now();
    let status = 'scraping';
    let failures = 0;
    try {
      for await (const page of client.crawlPages(jobId, {
        intervalMs: 500,
        signal: AbortSignal.any([ctx.signal, timer]),
        onPoll: (answer) => {
          status = answer.status;
          failures = answer.failures.length;
          progress.update(writer.files.length, total ?? answer.total, `pages  ${status}`);
        },
      })) {
        writer.write(page);
        progress.update(writer.files.length, total, `pages  ${status}`);
      }
    } catch (err) {
      if (ctx.signal.aborted) {
        progress.stop();
        await keepCancelledPages(ctx, jobId, writer, out);
        throw err;
      }
      if (!timer.aborted) throw err;
      throw new UnfurlError({
        code: 'job_timeout',
        status: 0,
        message: `Crawl ${jobId} did not end within ${timeoutS} s (${writer.files.length} pages written to ${out})`,
      });
    } finally {
      progress.stop();
    }
    const elapsedMs = Date.now() - started;
    const { credits } = await client.jobs.get(jobId, ctx);
    if (ctx.output.json) {
      printJson(ctx.output, {
        jobId,
        status,
        out,
        pages: writer.files.length,
        failures,
        files: writer.files,
        credits,
        elapsedMs,
      });
    } else {
      const failed = failures ? ` (${failures} failed)` : '';
      const spent = `${credits} credit${credits === 1 ? '' : 's'}`;
      const ended = status === 'completed' ? '' : ` (the crawl was ${status})`;
      line(
        ctx.output,
        `${writer.files.length} pages written to ${out}${failed} in ${(elapsedMs / 1000).toFixed(1)} s, ${spent}; job ${jobId}${ended}`,
      );
    }
    return 0;
  },
};

/**
 * Ctrl-C during a crawl: the job is cancelled on the server (or left running with --detach), and
 * the pages it kept that were not written yet are fetched and written, so the folder holds every
 * page the crawl was billed for.
 */
async function keepCancelledPages(ctx: CommandContext, jobId: string, writer: PageWriter, out: string) {
  const job = await stopOnInterrupt(ctx, jobId);
  if (!job) return;
  try {
    const client = ctx.client();
    const signal = AbortSignal.timeout(15_000);
    for await (const page of client.crawlPages(jobId, {
      skip: writer.files.length,
      intervalMs: 200,
      signal,
    })) {
      writer.write(page);
    }
  } catch (err) {
    ctx.output.err.write(`could not fetch the rest of the kept pages: ${(err as Error).message}\n`);
  }
  ctx.output.err.write(`${writer.files.length} pages written to ${out}\n`);
}
