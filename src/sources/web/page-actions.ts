// Runs a caller's actions (actions.ts) on a rendered Playwright page, in order, each bounded in time,
// and takes screenshots. Every request the page makes meanwhile (a click's navigation, a script's
// fetch, the next page of an infinite scroll) still goes through the pool's interception and so
// through SafeFetcher: nothing here talks to the network.
//
// Failures name the action: `Invalid parameter 'actions[3]': …` (invalid_request) when the caller's
// input is at fault (a selector that matches nothing, a script that throws, a key Playwright does
// not know), upstream_error when the page crashed or the browser failed under the action.
import type { Page } from 'playwright-core';
import { AppError, invalid } from '../../errors.js';
import { ACTION_LIMITS, actionSelector, type PageAction, waitingMs } from './actions.js';

// The page's globals as the functions below see them when they run in Chromium (the project is
// compiled without the DOM library).
interface PageElement {
  scrollWidth: number;
  scrollHeight: number;
  clientHeight: number;
  scrollBy(x: number, y: number): void;
  scrollIntoView(options: { block: 'start' | 'end' }): void;
}
declare const document: {
  fonts: { ready: Promise<unknown> };
  documentElement: PageElement;
  body: PageElement | null;
  activeElement: unknown;
  designMode: string;
  createDocumentFragment(): { querySelector(selector: string): unknown };
};
declare const window: { innerHeight: number; devicePixelRatio: number; scrollBy(x: number, y: number): void };
declare function requestAnimationFrame(callback: () => void): number;
declare function getComputedStyle(element: PageElement): { overflowY: string };

export interface ActionOutputs {
  /** PNGs from `screenshot` actions, in order. */
  screenshots: Buffer[];
  /** Snapshots from `scrape` actions, in order. */
  scrapes: { url: string; html: string }[];
  /** What each executeJavascript returned, in order: JSON-safe (see scriptValue()). */
  javascriptReturns: { type: string; value: unknown }[];
}

export const SCREENSHOT_LIMITS = {
  /**
   * A full-page screenshot's height, in image pixels: 16,384 (the page below is cut), i.e. 16,384 CSS
   * pixels on a desktop screen and 8,192 on a phone's (device scale 2). A page that grows without end
   * cannot make an image without end.
   */
  maxHeightPx: 16_384,
  /** Its width, in image pixels (a page wider than the screen is cut on the right). */
  maxWidthPx: 2_560,
  /** One capture, full page included. */
  timeoutMs: 20_000,
} as const;

/** A phone: an iPhone 12-14-sized screen at device scale 2 (3 costs more than twice as much to capture). */
export const MOBILE_SCREEN = { width: 390, height: 844, deviceScaleFactor: 2 } as const;

/** A `write` longer than twice this is inserted at once, but for its last this many keys. */
/** What one typed key may take, beyond an action's time (a loaded machine types at ~5 ms a key). */
const MS_PER_KEY = 20;
const TYPED_KEYS = 100;

/** The most one action may add to the render's deadline beyond its waiting (selector waits, clicks…). */
const ACTION_ALLOWANCE_MS = 60_000;

/**
 * How much longer than the pool's time limit a render with these options may take: its plain waiting
 * (waitFor and wait actions, at most 60 s as checkActions() allows), plus an allowance for the other
 * actions (a selector wait its full timeout, anything else 2 s, a screenshot 5 s) capped at 60 s.
 */
export function extraRenderMs(opts: {
  waitFor?: number;
  actions?: readonly PageAction[];
  screenshot?: unknown;
}): number {
  let allowance = opts.screenshot ? 5_000 : 0;
  for (const action of opts.actions ?? []) {
    if (action.type === 'wait')
      allowance += action.selector !== undefined ? ACTION_LIMITS.actionTimeoutMs : 0;
    else allowance += action.type === 'screenshot' ? 5_000 : 2_000;
  }
  const waiting = Math.min(waitingMs(opts.actions, opts.waitFor ?? 0), ACTION_LIMITS.maxWaitMs);
  return waiting + Math.min(allowance, ACTION_ALLOWANCE_MS);
}

/** A page's own activity as the actions need it: requests in flight, main-frame navigations. */
export class PageActivity {
  inFlight = 0;
  /** A main-frame navigation asked for and not yet committed or failed. */
  navigating = false;
  navigations = 0;

  constructor(private readonly page: Page) {
    page.on('request', (request) => {
      this.inFlight++;
      if (request.isNavigationRequest() && safeFrame(request) === page.mainFrame()) this.navigating = true;
    });
    const done = (request: { isNavigationRequest(): boolean; frame(): unknown }) => {
      this.inFlight = Math.max(0, this.inFlight - 1);
      if (request.isNavigationRequest() && safeFrame(request) === page.mainFrame()) this.navigating = false;
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) {
        this.navigations++;
        this.navigating = false;
      }
    });
  }

  /**
   * After an action that may set things going (a click, a key, a script, a scroll): lets the page
   * react, follows a navigation it started to its settled document, and gives requests it started up
   * to `quietMs` to finish (pages that poll never go quiet: they cost `quietMs`, no more).
   */
  async settle(
    navigationsBefore: number,
    quietMs: number,
    settleMs: number,
    timeoutMs: number,
  ): Promise<void> {
    await this.page
      .evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))))
      .catch(() => {});
    const until = Date.now() + timeoutMs;
    while (this.navigating && Date.now() < until) await sleep(20);
    if (this.navigations !== navigationsBefore) {
      await this.page.waitForLoadState('domcontentloaded', { timeout: timeoutMs }).catch(() => {});
      await this.page.waitForLoadState('networkidle', { timeout: settleMs }).catch(() => {});
      return;
    }
    const quiet = Date.now() + quietMs;
    while (this.inFlight > 0 && Date.now() < quiet) await sleep(20);
  }
}

export interface RunActionsOptions {
  /** How the actions are named in errors ('actions' unless told). */
  param?: string;
  /** The most to wait for network idle after an action navigated the page. */
  settleMs: number;
  /** The longest one action may take (default ACTION_LIMITS.actionTimeoutMs). */
  actionTimeoutMs?: number;
  activity: PageActivity;
  /** The render is over (its time limit, the caller gone): no further action starts, waits end. */
  signal?: AbortSignal;
}

/** Runs `actions` on `page` in order; the first that fails ends the run with its error. */
export async function runActions(
  page: Page,
  actions: readonly PageAction[],
  options: RunActionsOptions,
): Promise<ActionOutputs> {
  const param = options.param ?? 'actions';
  const outputs: ActionOutputs = { screenshots: [], scrapes: [], javascriptReturns: [] };
  await checkSelectorsInPage(page, actions, param);
  for (const [i, action] of actions.entries()) {
    options.signal?.throwIfAborted();
    const at = `${param}[${i}]`;
    try {
      await runAction(page, action, at, outputs, options);
    } catch (err) {
      throw actionError(err, page, action, at);
    }
  }
  return outputs;
}

/**
 * A PNG of the page: the screen, or the whole page cut at SCREENSHOT_LIMITS. The whole page is taken
 * through the DevTools protocol with Chromium's fast PNG encoding (about 2-3 times faster than
 * Playwright's fullPage on a 16,384 px page, for a file about a quarter larger).
 */
export async function screenshot(page: Page, fullPage: boolean): Promise<Buffer> {
  if (!fullPage) {
    return page.screenshot({ type: 'png', timeout: SCREENSHOT_LIMITS.timeoutMs, caret: 'hide' });
  }
  const size = await page.evaluate(async () => {
    // Web fonts first, as Playwright's screenshots do (not for ever).
    await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, 1000))]);
    const root = document.documentElement;
    const body = document.body;
    return {
      width: Math.max(root.scrollWidth, body?.scrollWidth ?? 0),
      height: Math.max(root.scrollHeight, body?.scrollHeight ?? 0),
      scale: window.devicePixelRatio || 1,
    };
  });
  const clip = {
    x: 0,
    y: 0,
    width: Math.max(1, Math.min(size.width, Math.floor(SCREENSHOT_LIMITS.maxWidthPx / size.scale))),
    height: Math.max(1, Math.min(size.height, Math.floor(SCREENSHOT_LIMITS.maxHeightPx / size.scale))),
    // In device pixels, as a screenshot of the screen is (a phone's at scale 2).
    scale: size.scale,
  };
  const cdp = await page.context().newCDPSession(page);
  try {
    const shot = await withTimeout(
      cdp.send('Page.captureScreenshot', {
        format: 'png',
        clip,
        captureBeyondViewport: true,
        optimizeForSpeed: true,
      }),
      SCREENSHOT_LIMITS.timeoutMs,
      () => new AppError('upstream_error', `The screenshot took over ${SCREENSHOT_LIMITS.timeoutMs} ms`),
    );
    return Buffer.from(shot.data, 'base64');
  } finally {
    cdp.detach().catch(() => {});
  }
}

async function runAction(
  page: Page,
  action: PageAction,
  at: string,
  outputs: ActionOutputs,
  options: RunActionsOptions,
): Promise<void> {
  const timeout = options.actionTimeoutMs ?? ACTION_LIMITS.actionTimeoutMs;
  const { activity, settleMs } = options;
  const before = activity.navigations;
  switch (action.type) {
    case 'wait': {
      if (action.milliseconds !== undefined) {
        await sleep(action.milliseconds, options.signal);
        return;
      }
      const selector = action.selector!;
      await page
        .locator(css(selector))
        .first()
        .waitFor({ state: 'visible', timeout })
        .catch(async (err: unknown) => {
          if (!isTimeout(err)) throw err;
          const count = await page
            .locator(css(selector))
            .count()
            .catch(() => 0);
          throw invalid(
            at,
            count === 0
              ? `no element matches "${shown(selector)}" after ${timeout} ms`
              : `no element matching "${shown(selector)}" became visible within ${timeout} ms`,
          );
        });
      return;
    }
    case 'click': {
      const locator = page.locator(css(action.selector));
      const notClickable = async (err: unknown): Promise<never> => {
        if (!isTimeout(err)) throw err;
        const count = await locator.count().catch(() => 0);
        throw invalid(
          at,
          count === 0
            ? `no element matches "${shown(action.selector)}" (waited ${timeout} ms)`
            : `the element matching "${shown(action.selector)}" could not be clicked within ${timeout} ms (hidden, disabled or covered)`,
        );
      };
      if (!action.all) {
        await locator.first().click({ timeout }).catch(notClickable);
      } else {
        await locator.first().waitFor({ state: 'attached', timeout }).catch(notClickable);
        const started = Date.now();
        const count = Math.min(await locator.count(), ACTION_LIMITS.maxClicks);
        for (let n = 0; n < count; n++) {
          const left = timeout - (Date.now() - started);
          if (left <= 0)
            throw invalid(
              at,
              `clicking every element matching "${shown(action.selector)}" took over ${timeout} ms`,
            );
          // One that went away or cannot be clicked (hidden) is passed over.
          await locator
            .nth(n)
            .click({ timeout: Math.min(left, 2_000) })
            .catch((err: unknown) => {
              if (!isTimeout(err)) throw err;
            });
          if (activity.navigations !== before) break; // a click left the page: the rest are gone
        }
      }
      await activity.settle(before, 1_000, settleMs, timeout);
      return;
    }
    case 'write': {
      const focused = await page.evaluate(() => {
        const active = document.activeElement;
        return (
          document.designMode === 'on' ||
          (!!active && active !== document.body && active !== document.documentElement)
        );
      });
      if (!focused) throw invalid(at, 'no element has the focus to type into: click an input first');
      // Key by key (a few ms each); a long text is inserted at once but for its last keys, so that the
      // page still sees key events at the end (autocompletes, search-as-you-type).
      const text = action.text;
      const typed = text.length <= TYPED_KEYS * 2 ? text : text.slice(-TYPED_KEYS);
      const typing = (async () => {
        if (typed.length < text.length)
          await page.keyboard.insertText(text.slice(0, text.length - typed.length));
        await page.keyboard.type(typed);
      })();
      // Typing takes a few ms a key: the action's own time is on top of that.
      const typingTimeout = timeout + typed.length * MS_PER_KEY;
      await withTimeout(typing, typingTimeout, () =>
        invalid(at, `typing ${text.length} characters took over ${typingTimeout} ms`),
      );
      return;
    }
    case 'press': {
      await withTimeout(page.keyboard.press(action.key), timeout, () =>
        invalid(at, `pressing ${action.key} took over ${timeout} ms`),
      ).catch((err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        if (/Unknown key/i.test(message))
          throw invalid(`${at}.key`, `"${action.key}" is not a key Playwright knows`);
        throw err;
      });
      await activity.settle(before, 1_000, settleMs, timeout);
      return;
    }
    case 'scroll': {
      const sign = action.direction === 'up' ? -1 : 1;
      if (action.selector === undefined) {
        await page.evaluate((s) => window.scrollBy(0, s * window.innerHeight), sign);
      } else {
        const element = page.locator(css(action.selector)).first();
        await element.waitFor({ state: 'attached', timeout }).catch((err: unknown) => {
          if (!isTimeout(err)) throw err;
          throw invalid(at, `no element matches "${shown(action.selector!)}" (waited ${timeout} ms)`);
        });
        await element.evaluate((el: PageElement, s: number) => {
          const style = getComputedStyle(el);
          const scrollable = el.scrollHeight > el.clientHeight && /auto|scroll|overlay/.test(style.overflowY);
          if (scrollable) el.scrollBy(0, s * el.clientHeight);
          else el.scrollIntoView({ block: s < 0 ? 'start' : 'end' });
        }, sign);
      }
      await activity.settle(before, 2_000, settleMs, timeout);
      return;
    }
    case 'screenshot':
      outputs.screenshots.push(await screenshot(page, action.fullPage ?? false));
      return;
    case 'scrape': {
      const html = await content(page, settleMs);
      const total = outputs.scrapes.reduce((n, snapshot) => n + snapshot.html.length, html.length);
      if (total > ACTION_LIMITS.maxScrapeChars) {
        throw new AppError(
          'upstream_error',
          `The page's snapshots up to ${at} add up to ${total} characters of HTML, more than ${ACTION_LIMITS.maxScrapeChars}`,
        );
      }
      outputs.scrapes.push({ url: page.url(), html });
      return;
    }
    case 'executeJavascript': {
      // (Chromium stops a busy script at the timeout; this also ends one that awaits for ever.)
      const value = await withTimeout(runScript(page, action.script, at, timeout), timeout + 500, () =>
        invalid(at, `the script ran for over ${timeout} ms`),
      );
      outputs.javascriptReturns.push(value);
      await activity.settle(before, 1_000, settleMs, timeout);
      return;
    }
    default:
      throw invalid(`${at}.type`, 'not an action');
  }
}

/** The most HTML a rendered page answers, in characters: what a fetched page may have in bytes. */
export const MAX_RENDERED_HTML_CHARS = 10 * 1024 * 1024;

/**
 * The page's HTML, after a navigation under way if one is (the document it lands on). Its size is
 * read in the page first: a script can build a document far larger than any page we would fetch,
 * and it is not brought over to this process.
 */
export async function content(page: Page, settleMs: number): Promise<string> {
  const read = async () => {
    const chars = await page.evaluate<number>(
      'document.documentElement ? document.documentElement.outerHTML.length : 0',
    );
    if (chars > MAX_RENDERED_HTML_CHARS) {
      throw new AppError(
        'payload_too_large',
        `The rendered page ${page.url()} has ${chars} characters of HTML, more than ${MAX_RENDERED_HTML_CHARS}`,
      );
    }
    return page.content();
  };
  return read().catch(async (err) => {
    if (err instanceof AppError) throw err;
    await page.waitForLoadState('domcontentloaded', { timeout: settleMs });
    return read();
  });
}

/**
 * Runs the caller's script in the page's main world, through the DevTools protocol rather than
 * Playwright's evaluate: as a script (its value: the last expression's) and, if it does not parse as
 * one (a `return` or an `await` at the top), as the body of an async function. The value,
 * awaited, is turned into JSON in the page and comes back capped. Chromium itself stops a script that
 * runs past `timeoutMs` (an endless loop does not keep the page's thread), which withTimeout() backs.
 */
async function runScript(
  page: Page,
  script: string,
  at: string,
  timeoutMs: number,
): Promise<{ type: string; value: unknown }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Runtime.enable');
    const evaluate = (expression: string) =>
      cdp.send('Runtime.evaluate', {
        expression,
        awaitPromise: true,
        timeout: timeoutMs,
        silent: true,
        objectGroup: 'unfurl-action',
      });
    let answer: Awaited<ReturnType<typeof evaluate>>;
    let parses = true;
    const started = Date.now();
    try {
      // Which form parses, asked without running anything (a SyntaxError the script throws when it
      // runs, JSON.parse's, must not make it run twice).
      const compiles = async (expression: string) =>
        !(await cdp.send('Runtime.compileScript', { expression, sourceURL: '', persistScript: false }))
          .exceptionDetails;
      // In a block, so that one script's `let` and `const` do not clash with the next one's (a block
      // keeps the value of its last expression).
      const block = `{\n${script}\n}`;
      const body = `(async () => {\n${script}\n})()`;
      const form = (await compiles(block)) ? block : (await compiles(body)) ? body : null;
      parses = form !== null;
      answer = await evaluate(form ?? block);
    } catch (err) {
      if (isNavigationError(err)) return { type: 'undefined', value: null }; // the script left the page
      // Chromium answers a script it stopped at the timeout with an internal error.
      if (Date.now() - started >= timeoutMs || /Execution was terminated/i.test(errorText(err))) {
        throw invalid(at, `the script ran for over ${timeoutMs} ms`);
      }
      throw err;
    }
    if (answer.exceptionDetails) {
      const text = exceptionText(answer.exceptionDetails);
      if (!parses && isSyntaxError(answer.exceptionDetails))
        throw invalid(`${at}.script`, `not valid JavaScript (${text})`);
      if (/Execution was terminated/i.test(text))
        throw invalid(at, `the script ran for over ${timeoutMs} ms`);
      throw invalid(at, `the script threw: ${text}`);
    }
    const result = answer.result;
    let value: ReturnType<typeof scriptValue>;
    if (result.objectId) {
      const read = await cdp.send('Runtime.callFunctionOn', {
        functionDeclaration: scriptValue.toString(),
        objectId: result.objectId,
        arguments: [{ objectId: result.objectId }, { value: ACTION_LIMITS.returnChars }],
        returnByValue: true,
        timeout: timeoutMs,
        silent: true,
      } as Parameters<typeof cdp.send<'Runtime.callFunctionOn'>>[1]);
      if (read.exceptionDetails)
        throw invalid(at, `the script's value could not be read: ${exceptionText(read.exceptionDetails)}`);
      value = read.result.value as ReturnType<typeof scriptValue>;
    } else {
      // A primitive: its value, or for what JSON has no word for (NaN, -0, a BigInt) its spelling.
      const spelled = result.unserializableValue;
      const primitive =
        spelled === undefined
          ? result.value
          : result.type === 'bigint'
            ? BigInt(spelled.slice(0, -1))
            : Number(spelled);
      value = scriptValue(primitive, ACTION_LIMITS.returnChars);
    }
    if ('tooLong' in value) {
      throw invalid(
        at,
        `the script returned ${value.tooLong} characters of JSON, more than ${ACTION_LIMITS.returnChars}`,
      );
    }
    return { type: value.type, value: value.json === null ? null : JSON.parse(value.json) };
  } catch (err) {
    if (err instanceof AppError || isPageGone(err)) throw err;
    if (isNavigationError(err)) return { type: 'undefined', value: null };
    throw invalid(at, `the script's value could not be read: ${errorText(err)}`);
  } finally {
    cdp.send('Runtime.releaseObjectGroup', { objectGroup: 'unfurl-action' }).catch(() => {});
    cdp.detach().catch(() => {});
  }
}

interface ScriptException {
  text: string;
  exception?: { className?: string; description?: string };
}

function isSyntaxError(details: ScriptException | undefined): boolean {
  return details?.exception?.className === 'SyntaxError';
}

/** "Error: boom", from a script's exception (its first line, without the stack). */
function exceptionText(details: ScriptException): string {
  return firstLine(details.exception?.description ?? details.text).slice(0, 500);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

/**
 * In the page: a script's value as JSON text, capped. `type` is its typeof (null: 'null'); a value
 * JSON cannot hold (undefined, a function, a symbol) comes back as type 'undefined' and null; one
 * JSON.stringify refuses (a cycle, a BigInt) as type 'string' and its String() (cut at the cap).
 */
function scriptValue(
  value: unknown,
  cap: number,
): { type: string; json: string | null } | { tooLong: number } {
  const type = value === null ? 'null' : typeof value;
  if (value === undefined || type === 'function' || type === 'symbol')
    return { type: 'undefined', json: null };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  if (json === undefined) {
    let text: string;
    try {
      text = String(value);
    } catch {
      text = Object.prototype.toString.call(value);
    }
    return { type: 'string', json: JSON.stringify(text.slice(0, cap - 2)) };
  }
  if (json.length > cap) return { tooLong: json.length };
  return { type, json };
}

/**
 * Checks every selector with Chromium's own CSS parser before any action runs, so that an action
 * list fails on its bad selector before it has clicked or typed anything.
 */
async function checkSelectorsInPage(
  page: Page,
  actions: readonly PageAction[],
  param: string,
): Promise<void> {
  const selectors = actions.map((a) => actionSelector(a) ?? null);
  if (selectors.every((s) => s === null)) return;
  const problems = await page.evaluate((list) => {
    const probe = document.createDocumentFragment();
    return list.map((s) => {
      if (s === null) return null;
      try {
        probe.querySelector(s);
        return null;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    });
  }, selectors);
  const bad = problems.findIndex((p) => p !== null);
  if (bad >= 0)
    throw invalid(`${param}[${bad}].selector`, `"${shown(selectors[bad]!)}" is not a CSS selector`);
}

/** What a failed action means for the caller. */
function actionError(err: unknown, page: Page, action: PageAction, at: string): AppError {
  if (err instanceof AppError) return err;
  if (isPageGone(err) || page.isClosed()) {
    return new AppError(
      'upstream_error',
      `Action ${at} (${action.type}) failed: the page crashed or closed`,
      errorText(err),
    );
  }
  const text = errorText(err);
  if (/selector|Unexpected token/i.test(text) && actionSelector(action) !== undefined) {
    return invalid(`${at}.selector`, `"${shown(actionSelector(action)!)}" could not be used (${text})`);
  }
  return new AppError('upstream_error', `Action ${at} (${action.type}) failed`, text);
}

/** Playwright's CSS engine, whatever the selector looks like (no text=, xpath=, >> chains). */
const css = (selector: string) => `css=${selector}`;
const shown = (selector: string) => (selector.length > 80 ? `${selector.slice(0, 80)}…` : selector);

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}

function isPageGone(err: unknown): boolean {
  return /Target crashed|Target page, context or browser has been closed|Page crashed|Browser has been closed/i.test(
    errorText(err),
  );
}

function isNavigationError(err: unknown): boolean {
  return /Execution context was destroyed|because of a navigation/i.test(errorText(err));
}

/** The first line of a Playwright error, without the name of the call ("page.evaluate: "). */
function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message
    .split('\n')[0]!
    .replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '')
    .trim()
    .slice(0, 500);
}

function safeFrame(request: { frame(): unknown }): unknown {
  try {
    return request.frame();
  } catch {
    return null;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `work`, or `onTimeout()`'s error after `ms` (the work is abandoned: the render's context ends it). */
export function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  work.catch(() => {}); // rejected after the timeout: nobody is listening any more
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
