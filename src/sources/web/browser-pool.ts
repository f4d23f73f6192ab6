// Headless Chromium for pages that need JavaScript: one browser process, launched on first use and
// relaunched if it dies, at most `size` pages rendered at once and `accountMax` per account (the rest
// wait, fairly between accounts, for a bounded time: see render-slots.ts), and a fresh context per
// caller so no cookies or storage pass between callers. One account's renders without actions take
// turns on warm tabs (browser-tabs.ts), wiped between renders: a batch of screenshots is then not a
// new renderer process per page.
//
// The browser never talks to the network itself. Every request it makes is intercepted and fetched by
// our SafeFetcher, so the SSRF policy (checked at connect time, after DNS, on every redirect hop)
// applies to the page, its redirects and its subresources alike. Chromium's own network stack is pointed
// at a proxy that cannot be resolved, so whatever escapes interception (preconnects, the hops of a
// redirect handed to the browser, which Playwright does not intercept; WebRTC) fails closed.
//
// A render may also wait, act on the page (page-actions.ts: click, type, scroll, run a script…) and
// take screenshots; its time limit then grows by the waiting it asks for (bounded, extraRenderMs()).

import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import { abortable } from '../../abortable.js';
import { AppError, invalid } from '../../errors.js';
import { type SafeFetcher, UnresolvedHostError, unresolvedHost } from '../../net/safe-fetch.js';
import { ACTION_LIMITS, checkActions, type PageAction } from './actions.js';
import { IdleTabs, type Tab } from './browser-tabs.js';
import {
  type ActionOutputs,
  content,
  extraRenderMs,
  MOBILE_SCREEN,
  PageActivity,
  runActions,
  screenshot,
  withTimeout,
} from './page-actions.js';
import { RenderSlots } from './render-slots.js';

export type { ActionOutputs } from './page-actions.js';

export interface RenderedPage {
  /** The DOM once the page has settled and the actions are done. */
  html: string;
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  /** A PNG, when `screenshot` was asked for. */
  screenshot?: Buffer;
  /** What the actions produced, when actions were given. */
  actions?: ActionOutputs;
}

export interface BrowserPoolOptions {
  chromiumPath: string;
  /** Pages rendered at once. */
  size: number;
  fetcher: SafeFetcher;
  /** Per render, from the moment it has a slot and a running browser (default 30000). */
  timeoutMs?: number;
  /** The most to wait for network idle after DOMContentLoaded (default 3000). */
  settleMs?: number;
  /** Pages one account renders at once (default: size, no limit of its own). */
  accountMax?: number;
  /** The longest a render waits for a slot before it is refused with 429/503 (default 10000). */
  queueTimeoutMs?: number;
  /** The longest one page action may take: a selector wait, a click, a script (default and most 10000). */
  actionTimeoutMs?: number;
}

export interface RenderOptions {
  /** Sent with every request of the page (e.g. accept-language). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Whose render it is, for the per-account limit (renders without one share a bucket). */
  account?: string;
  /** Milliseconds to wait once the page has settled, before the actions and the capture (≤ 60000). */
  waitFor?: number;
  /** A phone: its screen (390×844 at device scale 2), touch, and a mobile Chrome's user agent. */
  mobile?: boolean;
  /** Run in order after the load and waitFor (see actions.ts and page-actions.ts). */
  actions?: PageAction[];
  /** How errors name the actions (default 'actions'; e.g. 'scrapeOptions.actions'). */
  actionsParam?: string;
  /** A PNG of the page once the actions are done: the screen, or the full page (capped in height). */
  screenshot?: { fullPage: boolean };
}

/** What renderIn() needs of the options, checked. */
interface RenderPlan {
  headers: Record<string, string>;
  waitFor: number;
  mobile: boolean;
  actions: PageAction[];
  actionsParam: string;
  screenshot: { fullPage: boolean } | null;
  /** Images and fonts are fetched (for screenshots) rather than skipped. */
  loadImages: boolean;
}

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  // Without these Chromium phones home at start and stalls on a closed network.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-dev-shm-usage',
  // Belt and braces behind request interception: anything the network stack sends on its own goes to a
  // proxy whose name never resolves (loopback included), and WebRTC may not use UDP outside a proxy.
  '--proxy-server=http://unfurl-browser-has-no-network.invalid:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const MAX_REDIRECTS = 10;

/** A context and its page, with the render now using them (requests with none are refused). */
interface PoolTab extends Tab {
  render: {
    main: MainFrame;
    signal: AbortSignal;
    skipped: ReadonlySet<string>;
    /** Origins the render's requests went to: their storage is cleared before the tab is reused. */
    origins: Set<string>;
  } | null;
}

/** Warm tabs: closed after this long unused, or after this many renders. */
const TAB_IDLE_MS = 10_000;
const TAB_MAX_USES = 100;

/** The main frame's navigations, as the request handler sees them. */
interface MainFrame {
  /** While goto runs: its hops are reported here rather than followed (see forward()). */
  hopping: boolean;
  redirect: string | null;
  error: unknown;
  /**
   * The last main-frame document that settled, through goto or a script navigating the page later:
   * the document the render ends on, as our fetcher answered it (or refused or failed it).
   */
  last: { url: string; status: number; contentType: string | null } | { url: string; error: unknown } | null;
}

/** Not needed for the DOM: aborted without a fetch. */
const SKIPPED_TYPES = new Set(['image', 'media', 'font']);
/** When the render takes screenshots, images and fonts are fetched (through SafeFetcher) so they show. */
const SKIPPED_TYPES_FOR_SCREENSHOTS = new Set(['media']);
/** Hop-by-hop or recomputed request headers, and accept-encoding (SafeFetcher asks for what it decodes). */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'expect',
  'te',
  'accept-encoding',
  'proxy-authorization',
  'proxy-connection',
]);
/** SafeFetcher has already decoded the body, so its framing headers no longer describe it. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);

export class BrowserPool {
  private readonly chromiumPath: string;
  private readonly size: number;
  private readonly fetcher: SafeFetcher;
  private readonly timeoutMs: number;
  private readonly settleMs: number;
  private readonly actionTimeoutMs: number;
  private browser: Promise<Browser> | null = null;
  private closed = false;
  private readonly slots: RenderSlots;
  private readonly tabs: IdleTabs<PoolTab>;

  constructor(options: BrowserPoolOptions) {
    this.chromiumPath = options.chromiumPath;
    this.size = Math.max(1, options.size);
    this.fetcher = options.fetcher;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.settleMs = options.settleMs ?? 3_000;
    this.actionTimeoutMs = Math.min(
      options.actionTimeoutMs ?? ACTION_LIMITS.actionTimeoutMs,
      ACTION_LIMITS.actionTimeoutMs,
    );
    this.slots = new RenderSlots({
      size: this.size,
      accountMax: Math.max(1, options.accountMax ?? this.size),
      queueTimeoutMs: options.queueTimeoutMs ?? 10_000,
      holdMs: this.timeoutMs,
    });
    this.tabs = new IdleTabs(this.size, TAB_IDLE_MS, TAB_MAX_USES);
  }

  async render(url: string, opts: RenderOptions = {}): Promise<RenderedPage> {
    // The same refusal a plain fetch gives (scheme, credentials, private literals), before any browser work.
    const target = this.fetcher.checkUrl(url, 'url').toString();
    const plan = renderPlan(opts);
    // Waiting and actions lengthen the render (bounded): its slot is held that much longer too.
    const limitMs = this.timeoutMs + extraRenderMs(opts);
    const release = await this.slots.acquire(opts.account ?? '', opts.signal, limitMs);
    try {
      const browser = await this.launched(); // a first launch does not count against the time limit
      const deadline = AbortSignal.timeout(limitMs);
      const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
      try {
        return await this.renderWith(browser, target, plan, signal, opts, limitMs);
      } catch (err) {
        // The browser's process died under this render (it crashed, or was killed; its `disconnected`
        // has dropped it, so launched() starts a new one): the page is asked for once more, within
        // the same time limit. Not a render with actions: its scripts may have acted on the site.
        if (browser.isConnected() || plan.actions.length > 0 || signal.aborted || this.closed) throw err;
        return await this.renderWith(await this.launched(), target, plan, signal, opts, limitMs);
      }
    } finally {
      release();
    }
  }

  /** Tabs kept warm for the next render of their account (for tests and metrics). */
  get idleTabs(): number {
    return this.tabs.size;
  }

  /** Kills the browser; idempotent. Renders in flight fail, later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser;
    this.browser = null;
    this.tabs.clear(false);
    if (browser) await browser.then((b) => b.close()).catch(() => {});
  }

  /**
   * One render in a warm tab of the account or a fresh context, settled as soon as `signal` aborts
   * whatever Playwright is waiting for (a context closed under a pending newPage() can leave it
   * pending for good). A render with actions (scripts the caller runs) always has a context of its
   * own, closed after it; any other leaves its tab, wiped, for the account's next render.
   */
  private async renderWith(
    browser: Browser,
    url: string,
    plan: RenderPlan,
    signal: AbortSignal,
    opts: RenderOptions,
    limitMs: number,
  ): Promise<RenderedPage> {
    // A caller that gave up while the browser was launching: no tab is opened for it.
    if (opts.signal?.aborted) throw opts.signal.reason;
    // Ends the page's fetches still in flight (long polls) when the render is over, however it ends.
    const finished = new AbortController();
    const fetchSignal = AbortSignal.any([signal, finished.signal]);
    const options = contextOptions(browser, plan.headers, plan.mobile);
    const key = plan.actions.length === 0 ? `${opts.account ?? ''}\n${JSON.stringify(options)}` : null;
    const warm = key === null ? null : this.tabs.take(key);
    const opening = warm ? Promise.resolve(warm) : this.openTab(browser, key ?? '', options);
    let done = false;
    try {
      const page = await abortable(
        opening.then((tab) => this.renderIn(tab, url, plan, fetchSignal)),
        signal,
      );
      done = true;
      return page;
    } catch (err) {
      const callerSignal = opts.signal;
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (signal.aborted) {
        throw new AppError('upstream_error', `Rendering ${url} took longer than ${limitMs} ms`);
      }
      if (err instanceof AppError) throw err;
      // The browser died or misbehaved under this render.
      throw new AppError('upstream_error', `Could not render ${url}`, firstLine(String(err)));
    } finally {
      finished.abort();
      // A tab goes back only after a render that ended well; otherwise closing the context also ends
      // whatever the abandoned render was still waiting for (an aborted caller is not kept waiting).
      const closeContext = () => opening.then((tab) => tab.context.close()).catch(() => {});
      if (done && key !== null) void opening.then((tab) => this.keepTab(tab));
      else if (signal.aborted) void closeContext();
      else await closeContext();
    }
  }

  /** A fresh context and page whose every request goes to forward() on behalf of its current render. */
  private async openTab(
    browser: Browser,
    key: string,
    options: ReturnType<typeof contextOptions>,
  ): Promise<PoolTab> {
    const context = await browser.newContext(options);
    try {
      await blockWebSockets(context);
      const page = await context.newPage();
      const tab: PoolTab = { key, context, page, uses: 0, render: null };
      await context.route('**/*', (route) => {
        const render = tab.render;
        // Between renders the tab asks for nothing it may have.
        if (!render) return route.abort('blockedbyclient').catch(() => {});
        const req = route.request();
        const isMain = req.isNavigationRequest() && frameOf(req) === page.mainFrame();
        return this.forward(
          route,
          render.signal,
          isMain ? render.main : null,
          render.skipped,
          render.origins,
        );
      });
      return tab;
    } catch (err) {
      await context.close().catch(() => {});
      throw err;
    }
  }

  /**
   * Wipes a tab after a render and keeps it for the account's next one: the page leaves for
   * about:blank (its scripts end), cookies go, and so does the storage of every origin it touched. A
   * tab that opened other pages (popups), or that cannot be wiped, is closed instead.
   */
  private async keepTab(tab: PoolTab): Promise<void> {
    const origins = tab.render?.origins ?? new Set<string>();
    tab.render = null;
    tab.uses++;
    try {
      if (this.closed || tab.context.pages().length !== 1) throw new Error('not reusable');
      // What a tab keeps across its own navigations: the window's name and its session storage.
      await withTimeout(
        tab.page.evaluate('try { window.name = ""; sessionStorage.clear(); } catch {}'),
        this.settleMs,
        () => new Error('the page does not answer'),
      );
      await tab.page.goto('about:blank', { timeout: this.settleMs });
      await tab.context.clearCookies();
      if (origins.size > 0) {
        const cdp = await tab.context.newCDPSession(tab.page);
        try {
          for (const origin of origins) {
            await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
          }
        } finally {
          await cdp.detach().catch(() => {});
        }
      }
      if (this.closed) throw new Error('pool closed');
      this.tabs.put(tab);
    } catch {
      await tab.context.close().catch(() => {});
    }
  }

  private async renderIn(
    tab: PoolTab,
    url: string,
    plan: RenderPlan,
    signal: AbortSignal,
  ): Promise<RenderedPage> {
    const { page } = tab;
    const activity = plan.actions.length > 0 ? new PageActivity(page) : null;
    const main: MainFrame = { hopping: false, redirect: null, error: null, last: null };
    const skipped = plan.loadImages ? SKIPPED_TYPES_FOR_SCREENSHOTS : SKIPPED_TYPES;
    tab.render = { main, signal, skipped, origins: new Set() };
    let target = url;
    let response: Awaited<ReturnType<typeof page.goto>> = null;
    for (let redirects = 0; ; redirects++) {
      Object.assign(main, { hopping: true, redirect: null, error: null });
      try {
        response = await page.goto(target, { waitUntil: 'domcontentloaded', timeout: 0 });
      } catch (err) {
        throw mainDocumentError(target, main.error ?? err);
      } finally {
        main.hopping = false;
      }
      if (!main.redirect) break;
      if (redirects === MAX_REDIRECTS) {
        throw new AppError('upstream_error', `${url} redirects more than ${MAX_REDIRECTS} times`);
      }
      target = main.redirect;
    }
    if (!response) throw new AppError('upstream_error', `Rendering ${url} gave no document`);
    // Scripts that fetch their content: wait for the network to go quiet, but render what is there
    // when it does not (pages that poll never do). A page without scripts is done once it has
    // loaded: networkidle's half second of quiet is most of a static page's render.
    const scripted = await page.evaluate<boolean>('document.scripts.length > 0').catch(() => true);
    await page
      .waitForLoadState(scripted ? 'networkidle' : 'load', { timeout: this.settleMs })
      .catch(() => {});
    const extras = await this.act(page, plan, activity, signal);
    // (A script that navigated at the last moment: content() takes the document it navigated to.)
    const html = await content(page, this.settleMs).catch((err: unknown) => {
      // A page that cannot be read after its script's navigation was refused or failed: that
      // navigation is the answer (a refused address is the caller's 400), not the read.
      finalDocument(url, page.url(), main.last);
      throw err;
    });
    return { html, url: page.url(), ...finalDocument(url, page.url(), main.last), ...extras };
  }

  /** waitFor, the actions and the screenshot asked for, in that order. */
  private async act(
    page: Page,
    plan: RenderPlan,
    activity: PageActivity | null,
    signal: AbortSignal,
  ): Promise<Pick<RenderedPage, 'screenshot' | 'actions'>> {
    const extras: Pick<RenderedPage, 'screenshot' | 'actions'> = {};
    if (plan.waitFor > 0) await page.waitForTimeout(plan.waitFor);
    if (activity) {
      extras.actions = await runActions(page, plan.actions, {
        param: plan.actionsParam,
        settleMs: this.settleMs,
        actionTimeoutMs: this.actionTimeoutMs,
        activity,
        signal,
      });
    }
    if (plan.screenshot) {
      try {
        extras.screenshot = await screenshot(page, plan.screenshot.fullPage);
      } catch (err) {
        throw new AppError(
          'upstream_error',
          `Could not take a screenshot of ${page.url()}`,
          firstLine(String(err)),
        );
      }
    }
    return extras;
  }

  /**
   * Fetches one of the browser's requests through SafeFetcher and hands the answer to the browser.
   * Playwright does not intercept the hops of a redirect the browser follows (they would go to the
   * dead proxy), so redirects are never handed to the browser: SafeFetcher follows a subresource's
   * redirects itself (each hop checked), and a main document's hop is reported to renderWith(), which
   * navigates to the next one, so that the page ends on the final URL.
   */
  private async forward(
    route: Route,
    signal: AbortSignal,
    main: MainFrame | null,
    skipped: ReadonlySet<string>,
    origins: Set<string>,
  ): Promise<void> {
    const request = route.request();
    const method = request.method();
    const origin = originOf(request.url());
    if (origin) origins.add(origin);
    if (skipped.has(request.resourceType())) return route.abort('blockedbyclient').catch(() => {});
    if (method !== 'GET' && method !== 'POST' && method !== 'HEAD') {
      return route.abort('blockedbyclient').catch(() => {});
    }
    let answer: Awaited<ReturnType<SafeFetcher['fetch']>>;
    try {
      answer = await this.fetcher.fetch(request.url(), {
        method,
        headers: requestHeaders(await request.allHeaders()),
        body: request.postDataBuffer() ?? undefined,
        ...(main?.hopping ? { maxRedirects: 0 } : {}),
        signal,
        proxy: true,
      });
    } catch (err) {
      if (main) {
        main.error = err;
        main.last = { url: request.url(), error: err };
      }
      const refused = err instanceof AppError && err.code === 'invalid_request';
      return route.abort(refused ? 'blockedbyclient' : 'failed').catch(() => {});
    }
    const location = answer.headers.location;
    if (main?.hopping && answer.status >= 300 && answer.status < 400 && typeof location === 'string') {
      main.redirect = new URL(location, request.url()).toString();
      // An empty stand-in document, so that cookies set by the hop are kept as the browser would.
      const cookies = answer.headers['set-cookie'];
      const headers = responseHeaders(cookies ? { 'set-cookie': cookies } : {});
      return route.fulfill({ status: 200, contentType: 'text/plain', headers, body: '' }).catch(() => {});
    }
    if (main) main.last = { url: answer.url, status: answer.status, contentType: answer.contentType };
    await route
      .fulfill({ status: answer.status, headers: responseHeaders(answer.headers), body: answer.body })
      .catch(() => {}); // the render was stopped meanwhile
  }

  /** The shared browser, launched on first use and again after it died. */
  private launched(): Promise<Browser> {
    if (this.closed) return Promise.reject(new AppError('service_unavailable', 'The browser pool is closed'));
    if (!this.browser) {
      // Loaded on first use: playwright-core is half a second of every process's start (the CLI, a
      // worker) that may never render a page.
      const launching: Promise<Browser> = import('playwright-core')
        .then(({ chromium }) =>
          chromium.launch({ executablePath: this.chromiumPath, args: LAUNCH_ARGS, headless: true }),
        )
        .then(
          (browser) => {
            browser.on('disconnected', () => {
              if (this.browser !== launching) return;
              this.browser = null;
              this.tabs.clear(false); // their contexts died with it
            });
            return browser;
          },
          (err: Error) => {
            if (this.browser === launching) this.browser = null;
            throw new AppError(
              'service_unavailable',
              'The headless browser could not be started',
              firstLine(err.message),
            );
          },
        );
      this.browser = launching;
    }
    return this.browser;
  }
}

/** The options checked (the route checks them too; every caller is not a route). */
function renderPlan(opts: RenderOptions): RenderPlan {
  const waitFor = opts.waitFor ?? 0;
  if (!Number.isInteger(waitFor) || waitFor < 0 || waitFor > ACTION_LIMITS.maxWaitMs) {
    throw invalid('waitFor', `an integer from 0 to ${ACTION_LIMITS.maxWaitMs} (milliseconds)`);
  }
  const actionsParam = opts.actionsParam ?? 'actions';
  checkActions(opts.actions, waitFor, actionsParam);
  const actions = opts.actions ?? [];
  const shot = opts.screenshot ? { fullPage: opts.screenshot.fullPage === true } : null;
  return {
    headers: opts.headers ?? {},
    waitFor,
    mobile: opts.mobile === true,
    actions,
    actionsParam,
    screenshot: shot,
    loadImages: shot !== null || actions.some((a) => a.type === 'screenshot'),
  };
}

function contextOptions(browser: Browser, headers: Record<string, string>, mobile: boolean) {
  const extra: Record<string, string> = {};
  let userAgent: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'user-agent') userAgent = value;
    else extra[name] = value;
  }
  const major = browser.version().split('.')[0];
  // Headless Chromium says "HeadlessChrome" in its user agent, which many sites refuse outright.
  const defaultAgent = mobile
    ? `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`
    : `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
  return {
    serviceWorkers: 'block' as const,
    acceptDownloads: false,
    extraHTTPHeaders: extra, // not `locale`: it would replace the caller's accept-language
    userAgent: userAgent ?? defaultAgent,
    ...(mobile
      ? {
          viewport: { width: MOBILE_SCREEN.width, height: MOBILE_SCREEN.height },
          deviceScaleFactor: MOBILE_SCREEN.deviceScaleFactor,
          isMobile: true,
          hasTouch: true,
        }
      : {}),
  };
}

/** WebSockets are not fetched through SafeFetcher, so none may open: each is closed unconnected. */
async function blockWebSockets(context: BrowserContext): Promise<void> {
  await context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: 'WebSockets are blocked' }));
}

function originOf(url: string): string | null {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

function frameOf(request: Request) {
  try {
    return request.frame();
  } catch {
    return null; // a service worker's request has no frame
  }
}

function requestHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!lower.startsWith(':') && !DROPPED_REQUEST_HEADERS.has(lower)) out[lower] = value;
  }
  return out;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name.toLowerCase())) continue;
    // Playwright splits a set-cookie value on newlines into separate cookies.
    out[name] = Array.isArray(value) ? value.join(name.toLowerCase() === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}

/**
 * The status and type of the document a render ends on, judged by the last navigation of the main
 * frame rather than the first: a script that sends the page elsewhere leaves a Chromium error page (a
 * refused or failed navigation) or a document we never fetched (about:blank), which is no answer.
 */
function finalDocument(
  url: string,
  finalUrl: string,
  last: MainFrame['last'],
): { status: number; contentType: string | null } {
  if (last && 'error' in last) {
    const { error } = last;
    if (error instanceof AppError && error.code === 'invalid_request') {
      throw new AppError(
        'invalid_request',
        `Invalid parameter 'url': the page navigates to ${last.url}, which is refused (${error.message.replace(/^Invalid parameter '[^']*': /, '')})`,
        'url',
      );
    }
    const reason = error instanceof Error ? firstLine(error.message) : String(error);
    throw new AppError('upstream_error', `The page at ${url} navigates to ${last.url}, which failed`, reason);
  }
  if (!last || !/^https?:/.test(finalUrl)) {
    throw new AppError('upstream_error', `The page at ${url} navigates away to ${finalUrl}, not a web page`);
  }
  return { status: last.status, contentType: last.contentType };
}

/** What a failed navigation means for the caller, preferring what our fetcher said about it. */
function mainDocumentError(url: string, err: unknown): AppError {
  if (err instanceof AppError) return err; // our fetcher's refusals (invalid_request naming url) included
  const host = unresolvedHost(err, url);
  if (host !== null) return new UnresolvedHostError(host);
  const message = err instanceof Error ? firstLine(err.message) : String(err);
  return new AppError('upstream_error', `Could not load ${url}`, message);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
