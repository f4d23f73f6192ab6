// What a caller may do to a page in the browser before it is read: wait, click, type, press a key,
// scroll, take screenshots, snapshot the HTML, run a script. The schema says what each action looks
// like; checkActions() says what a schema cannot (a wait is a time or a selector, the waiting in all
// is bounded, selectors are CSS); page-actions.ts runs them on a rendered page.
//
// Selectors are CSS only (Playwright's other engines, text= or xpath=, are not offered). They are
// checked here without a browser by linkedom's selector engine (css-what), the same check the
// scrape options' includeTags use; it is lenient ("div >" passes), so page-actions.ts checks every
// selector again with Chromium's own parser before the first action runs, and a selector that fails
// either check is refused as invalid_request naming `actions[i].selector`.
import { type Static, Type } from '@sinclair/typebox';
import { parseHTML } from 'linkedom';
import { invalid } from '../../errors.js';

export const ACTION_LIMITS = {
  /** Actions in one render. */
  maxActions: 50,
  /** waitFor plus every wait's milliseconds, in all. */
  maxWaitMs: 60_000,
  /** The longest one action (a selector wait, a click, a script, a screenshot) may take. */
  actionTimeoutMs: 10_000,
  selectorLength: 500,
  textLength: 10_000,
  scriptLength: 20_000,
  keyLength: 50,
  /** One script's return value, as JSON text, in characters. */
  returnChars: 100_000,
  /** The elements one `click` with `all` clicks at most. */
  maxClicks: 100,
  /** The HTML of every `scrape` snapshot of one render, in all, in characters. */
  maxScrapeChars: 20_000_000,
} as const;

/** A Playwright key name: modifiers joined by '+', then one printable character or a named key. */
export const KEY_PATTERN =
  '^(?:(?:Shift|Control|Alt|Meta|ControlOrMeta)\\+){0,4}(?:[!-~]|[A-Z][A-Za-z0-9]{1,23})$';

const Selector = (description: string) =>
  Type.String({ minLength: 1, maxLength: ACTION_LIMITS.selectorLength, description });

const WaitAction = Type.Object(
  {
    type: Type.Literal('wait'),
    milliseconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: ACTION_LIMITS.maxWaitMs, description: 'How long to wait' }),
    ),
    selector: Type.Optional(
      Selector(
        `A CSS selector: wait until an element it matches is visible (at most ${ACTION_LIMITS.actionTimeoutMs} ms)`,
      ),
    ),
  },
  { additionalProperties: false, description: 'Wait a time or for an element: exactly one of the two' },
);

const ClickAction = Type.Object(
  {
    type: Type.Literal('click'),
    selector: Selector('A CSS selector: the first element it matches is clicked'),
    all: Type.Optional(
      Type.Boolean({ description: `Click every element it matches (at most ${ACTION_LIMITS.maxClicks})` }),
    ),
  },
  { additionalProperties: false },
);

const WriteAction = Type.Object(
  {
    type: Type.Literal('write'),
    text: Type.String({
      minLength: 1,
      maxLength: ACTION_LIMITS.textLength,
      description: 'Typed into the focused element (click an input first)',
    }),
  },
  { additionalProperties: false },
);

const PressAction = Type.Object(
  {
    type: Type.Literal('press'),
    key: Type.String({
      minLength: 1,
      maxLength: ACTION_LIMITS.keyLength,
      pattern: KEY_PATTERN,
      description: 'A key, as Playwright names them: Enter, Tab, ArrowDown, a, Shift+Tab, Control+a…',
    }),
  },
  { additionalProperties: false },
);

const ScrollAction = Type.Object(
  {
    type: Type.Literal('scroll'),
    direction: Type.Optional(
      Type.Union([Type.Literal('up'), Type.Literal('down')], { description: 'down unless told' }),
    ),
    selector: Type.Optional(
      Selector('A CSS selector: scroll the element it matches rather than the page (by its own height)'),
    ),
  },
  { additionalProperties: false, description: 'Scroll the page by one screen (or an element by its height)' },
);

const ScreenshotAction = Type.Object(
  {
    type: Type.Literal('screenshot'),
    fullPage: Type.Optional(
      Type.Boolean({ description: 'The whole page (capped in height), not only the screen' }),
    ),
  },
  { additionalProperties: false },
);

const ScrapeAction = Type.Object(
  { type: Type.Literal('scrape') },
  { additionalProperties: false, description: "A snapshot of the page's HTML and URL at this point" },
);

const ExecuteJavascriptAction = Type.Object(
  {
    type: Type.Literal('executeJavascript'),
    script: Type.String({
      minLength: 1,
      maxLength: ACTION_LIMITS.scriptLength,
      description:
        'Run in the page: an expression, or a function body with `return` (awaited when a promise); its ' +
        `value comes back as JSON (at most ${ACTION_LIMITS.returnChars} characters)`,
    }),
  },
  { additionalProperties: false },
);

export const PageActionSchema = Type.Union(
  [
    WaitAction,
    ClickAction,
    WriteAction,
    PressAction,
    ScrollAction,
    ScreenshotAction,
    ScrapeAction,
    ExecuteJavascriptAction,
  ],
  { description: 'One thing done to the page' },
);

export const ActionsSchema = Type.Array(PageActionSchema, {
  maxItems: ACTION_LIMITS.maxActions,
  description: `Done in order once the page has loaded and waitFor has passed (at most ${ACTION_LIMITS.maxActions}; waiting in all at most ${ACTION_LIMITS.maxWaitMs} ms)`,
});

export type PageAction = Static<typeof PageActionSchema>;

/** The selector an action carries, if any. */
export function actionSelector(action: PageAction): string | undefined {
  return 'selector' in action ? action.selector : undefined;
}

/** The milliseconds of plain waiting `waitForMs` and the actions ask for (selector waits not counted). */
export function waitingMs(actions: readonly PageAction[] | undefined, waitForMs: number): number {
  let total = Math.max(0, waitForMs);
  for (const action of actions ?? []) {
    if (action.type === 'wait' && action.milliseconds !== undefined) total += action.milliseconds;
  }
  return total;
}

/**
 * Throws invalid_request naming the parameter (`param`, `param[i]`, `param[i].selector`…) for what
 * the schema cannot say: too many actions, too much waiting, a wait with both or neither of its
 * options, a selector that is not CSS, a key Playwright does not name. Input the schema has not
 * seen is checked as well (types, lengths), so this may guard a caller that skipped it.
 */
export function checkActions(actions: PageAction[] | undefined, waitForMs: number, param = 'actions'): void {
  if (actions === undefined) return;
  if (!Array.isArray(actions)) throw invalid(param, 'a list of actions');
  if (actions.length > ACTION_LIMITS.maxActions) {
    throw invalid(param, `at most ${ACTION_LIMITS.maxActions} actions (${actions.length} given)`);
  }
  actions.forEach((action, i) => {
    checkAction(action, `${param}[${i}]`);
  });
  const waiting = waitingMs(actions, waitForMs);
  if (waiting > ACTION_LIMITS.maxWaitMs) {
    throw invalid(
      param,
      `waitFor and the wait actions add up to ${waiting} ms of waiting, more than ${ACTION_LIMITS.maxWaitMs} ms`,
    );
  }
}

function checkAction(action: PageAction, at: string): void {
  if (typeof action !== 'object' || action === null) throw invalid(at, 'an action object');
  const stringField = (name: string, max: number) => {
    const value = (action as unknown as Record<string, unknown>)[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > max) {
      throw invalid(`${at}.${name}`, `a string of 1 to ${max} characters`);
    }
  };
  switch (action.type) {
    case 'wait': {
      const hasMs = action.milliseconds !== undefined;
      const hasSelector = action.selector !== undefined;
      if (hasMs === hasSelector) throw invalid(at, 'a wait takes exactly one of milliseconds and selector');
      if (hasMs) {
        const ms = action.milliseconds!;
        if (!Number.isInteger(ms) || ms < 1 || ms > ACTION_LIMITS.maxWaitMs) {
          throw invalid(`${at}.milliseconds`, `an integer from 1 to ${ACTION_LIMITS.maxWaitMs}`);
        }
      }
      break;
    }
    case 'click':
      stringField('selector', ACTION_LIMITS.selectorLength);
      break;
    case 'write':
      stringField('text', ACTION_LIMITS.textLength);
      break;
    case 'press':
      stringField('key', ACTION_LIMITS.keyLength);
      if (!new RegExp(KEY_PATTERN).test(action.key)) {
        throw invalid(
          `${at}.key`,
          `"${action.key}" is not a key name (Enter, Tab, ArrowDown, a, Shift+Tab…)`,
        );
      }
      break;
    case 'scroll':
      if (action.direction !== undefined && action.direction !== 'up' && action.direction !== 'down') {
        throw invalid(`${at}.direction`, 'up or down');
      }
      break;
    case 'executeJavascript':
      stringField('script', ACTION_LIMITS.scriptLength);
      break;
    case 'screenshot':
    case 'scrape':
      break;
    default:
      throw invalid(
        `${at}.type`,
        `"${String((action as { type?: unknown }).type).slice(0, 40)}" is not an action`,
      );
  }
  const selector = actionSelector(action);
  if (selector !== undefined) {
    stringField('selector', ACTION_LIMITS.selectorLength);
    const problem = selectorProblem(selector);
    if (problem) throw invalid(`${at}.selector`, problem);
  }
}

/**
 * Why `selector` is not a CSS selector, or null. linkedom's engine (css-what) catches most syntax
 * errors and unknown pseudo-classes; it lets a blank selector and a trailing combinator through, so
 * those are caught here. Chromium's parser has the last word (see page-actions.ts).
 */
export function selectorProblem(selector: string): string | null {
  const shown = `"${selector.slice(0, 80)}"`;
  if (selector.trim() === '') return 'a blank selector';
  if (/[>+~,]\s*$/.test(selector)) return `${shown} is not a CSS selector (it ends in a combinator)`;
  const { document } = parseHTML('<html><body></body></html>');
  try {
    document.querySelector(selector);
  } catch {
    return `${shown} is not a CSS selector`;
  }
  return null;
}
