// Warm browser tabs kept between one account's renders. A fresh context and page cost Chromium a new
// renderer process, most of a simple render's CPU (≈ 200 ms of the ≈ 300 ms a screenshot costs on
// this project's 2-core machine); a batch renders hundreds of pages with the same options for the
// same account, so its renders take turns on a few tabs instead.
//
// A tab is only ever handed to the account (and the context options: user agent, headers, phone)
// it was made for, so nothing passes between callers. Between two renders it is wiped (see
// BrowserPool.resetTab: the page left for about:blank, cookies and the storage of every origin it
// touched cleared); a tab that cannot be wiped, or that opened a second page, is closed instead.
// Idle tabs are closed after `idleMs`, and at most `max` are kept (the oldest go first).
import type { BrowserContext, Page } from 'playwright-core';

export interface Tab {
  key: string;
  context: BrowserContext;
  page: Page;
  /** Renders done in this tab. */
  uses: number;
}

export class IdleTabs<T extends Tab> {
  private readonly idle: { tab: T; timer: NodeJS.Timeout }[] = [];

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
    /** Renders after which a tab is retired rather than kept (bounds what a long batch accumulates). */
    readonly maxUses: number,
  ) {}

  /** A warm tab made for `key`, if one is idle. */
  take(key: string): T | null {
    const i = this.idle.findIndex((entry) => entry.tab.key === key);
    if (i < 0) return null;
    const [entry] = this.idle.splice(i, 1);
    clearTimeout(entry!.timer);
    return entry!.tab;
  }

  /** Keeps a wiped tab for the next render of its key. */
  put(tab: T): void {
    if (tab.uses >= this.maxUses || this.max === 0) {
      close(tab);
      return;
    }
    if (this.idle.length >= this.max) {
      const oldest = this.idle.shift()!;
      clearTimeout(oldest.timer);
      close(oldest.tab);
    }
    const timer = setTimeout(() => {
      const i = this.idle.findIndex((entry) => entry.tab === tab);
      if (i >= 0) close(this.idle.splice(i, 1)[0]!.tab);
    }, this.idleMs);
    timer.unref();
    this.idle.push({ tab, timer });
  }

  /** Forgets every idle tab (closing them unless their browser is gone). */
  clear(closeThem = true): void {
    for (const { tab, timer } of this.idle.splice(0)) {
      clearTimeout(timer);
      if (closeThem) close(tab);
    }
  }

  get size(): number {
    return this.idle.length;
  }
}

function close(tab: Tab): void {
  void tab.context.close().catch(() => {});
}
