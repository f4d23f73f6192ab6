// Wrong values made from right ones, for tests of refusals.

/** `text` with its last character replaced by another one: never `text` itself. */
export const changeLastChar = (text: string): string =>
  `${text.slice(0, -1)}${text.endsWith('x') ? 'y' : 'x'}`;
