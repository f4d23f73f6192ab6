// The client commands, by area.
export * as account from './account.js';
export * as ai from './ai.js';
export * as monitor from './monitor.js';
export * as video from './video.js';
export * as web from './web.js';
