// cli.ts dispatches client commands by the names in names.ts (without loading the SDK): every command
// has its name there, and every name there has a command.
import { expect, it } from 'vitest';
import { commandNameMismatches } from '../../src/main/client/index.js';

it('names.ts lists exactly the client commands', () => {
  expect(commandNameMismatches()).toEqual([]);
});
