// The page actions' schema and checks on their own (no browser): what the schema takes and refuses,
// and what checkActions() refuses beyond it, each refusal naming the parameter at fault.
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import {
  ACTION_LIMITS,
  ActionsSchema,
  checkActions,
  type PageAction,
  selectorProblem,
} from '../../../src/sources/web/actions.js';
import { extraRenderMs } from '../../../src/sources/web/page-actions.js';

const schema = TypeCompiler.Compile(ActionsSchema);

function refusal(actions: unknown, waitFor = 0, param?: string): AppError {
  try {
    checkActions(actions as PageAction[], waitFor, param);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_request');
    return err as AppError;
  }
  throw new Error(`accepted: ${JSON.stringify(actions)}`);
}

describe('ActionsSchema', () => {
  it('takes every kind of action', () => {
    const all: PageAction[] = [
      { type: 'wait', milliseconds: 500 },
      { type: 'wait', selector: '#results li' },
      { type: 'click', selector: 'button.more', all: true },
      { type: 'write', text: 'hello' },
      { type: 'press', key: 'Enter' },
      { type: 'press', key: 'Shift+Tab' },
      { type: 'press', key: 'a' },
      { type: 'scroll' },
      { type: 'scroll', direction: 'up', selector: '.list' },
      { type: 'screenshot', fullPage: true },
      { type: 'scrape' },
      { type: 'executeJavascript', script: 'return document.title' },
    ];
    expect(schema.Check(all)).toBe(true);
    expect(() => checkActions(all, 1000)).not.toThrow();
  });

  it('refuses unknown actions, extra fields, bad keys, long texts and too many actions', () => {
    for (const bad of [
      [{ type: 'hover', selector: 'a' }],
      [{ type: 'click' }],
      [{ type: 'click', selector: 'a', extra: 1 }],
      [{ type: 'press', key: 'Enter; rm -rf' }],
      [{ type: 'press', key: 'enter' }],
      [{ type: 'scroll', direction: 'left' }],
      [{ type: 'wait', milliseconds: 0 }],
      [{ type: 'wait', milliseconds: 60_001 }],
      [{ type: 'write', text: 'x'.repeat(ACTION_LIMITS.textLength + 1) }],
      [{ type: 'executeJavascript', script: 'x'.repeat(ACTION_LIMITS.scriptLength + 1) }],
      [{ type: 'click', selector: 'a'.repeat(ACTION_LIMITS.selectorLength + 1) }],
      Array.from({ length: 51 }, () => ({ type: 'scrape' })),
    ]) {
      expect(schema.Check(bad), JSON.stringify(bad).slice(0, 80)).toBe(false);
    }
  });
});

describe('checkActions', () => {
  it('accepts no actions at all', () => {
    expect(() => checkActions(undefined, 0)).not.toThrow();
    expect(() => checkActions([], 60_000)).not.toThrow();
  });

  it('refuses more than 50 actions, naming actions', () => {
    const err = refusal(Array.from({ length: 51 }, () => ({ type: 'scrape' })));
    expect(err.message).toBe("Invalid parameter 'actions': at most 50 actions (51 given)");
    expect(err.details).toBe('actions');
  });

  it('refuses more than 60 s of waiting in all, waitFor included', () => {
    const err = refusal(
      [
        { type: 'wait', milliseconds: 30_000 },
        { type: 'wait', milliseconds: 20_000 },
      ],
      10_001,
    );
    expect(err.message).toMatch(/^Invalid parameter 'actions': .*60001 ms of waiting, more than 60000 ms$/);
    expect(() => checkActions([{ type: 'wait', milliseconds: 50_000 }], 10_000)).not.toThrow();
  });

  it('refuses a wait with both or neither of milliseconds and selector, naming its index', () => {
    expect(refusal([{ type: 'scrape' }, { type: 'wait' }]).message).toBe(
      "Invalid parameter 'actions[1]': a wait takes exactly one of milliseconds and selector",
    );
    expect(refusal([{ type: 'wait', milliseconds: 5, selector: 'p' }]).details).toBe('actions[0]');
  });

  it('refuses a selector that is not CSS, naming actions[i].selector, under the prefix given', () => {
    for (const selector of ['div[', '##', 'a:nonexistent', ':has(', 'a,,b', '   ', 'div >', '//div']) {
      const err = refusal(
        [{ type: 'scrape' }, { type: 'scrape' }, { type: 'click', selector }],
        0,
        'scrapeOptions.actions',
      );
      expect(err.details, selector).toBe('scrapeOptions.actions[2].selector');
      expect(err.message, selector).toMatch(/^Invalid parameter 'scrapeOptions\.actions\[2\]\.selector': /);
    }
    expect(refusal([{ type: 'scroll', selector: 'ul > ' }]).details).toBe('actions[0].selector');
    expect(refusal([{ type: 'wait', selector: 'p:bogus' }]).details).toBe('actions[0].selector');
    for (const good of ['#a .b > c[href^="x"]', 'li:nth-child(2n+1)', 'a:has(b)', 'button:not(.x)', '*']) {
      expect(selectorProblem(good), good).toBeNull();
    }
  });

  it('checks what the schema would have refused, for callers that skip it', () => {
    expect(refusal([{ type: 'hover' }]).details).toBe('actions[0].type');
    expect(refusal([{ type: 'press', key: 'Enter\n' }]).details).toBe('actions[0].key');
    expect(refusal([{ type: 'write', text: '' }]).details).toBe('actions[0].text');
    expect(refusal([{ type: 'click', selector: 42 }]).details).toBe('actions[0].selector');
    expect(refusal([{ type: 'wait', milliseconds: 1.5 }]).details).toBe('actions[0].milliseconds');
    expect(refusal([{ type: 'scroll', direction: 'left' }]).details).toBe('actions[0].direction');
    expect(refusal([null]).details).toBe('actions[0]');
    expect(refusal('scrape').details).toBe('actions');
  });

  it('lengthens the render by its waiting and a bounded allowance for the actions', () => {
    expect(extraRenderMs({})).toBe(0);
    expect(extraRenderMs({ waitFor: 30_000 })).toBe(30_000);
    expect(
      extraRenderMs({ waitFor: 1000, actions: [{ type: 'wait', milliseconds: 2000 }, { type: 'scrape' }] }),
    ).toBe(5000);
    const many = Array.from({ length: 50 }, () => ({ type: 'wait', selector: 'p' }) as PageAction);
    expect(extraRenderMs({ waitFor: 60_000, actions: many, screenshot: { fullPage: true } })).toBe(120_000);
  });
});
