// The part of jsdom 26 the quality test uses: a parsed document to hand Readability.js. Its full
// types (@types/jsdom) pull the DOM library into the whole project, which Node code must not see.
declare module 'jsdom' {
  export class VirtualConsole {}
  export class JSDOM {
    constructor(html: string, options?: { url?: string; virtualConsole?: VirtualConsole });
    readonly window: { document: never; close(): void };
  }
}
