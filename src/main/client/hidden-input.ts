// A prompt on a terminal whose answer is never shown: the prompt stays on screen while the typed
// characters do not appear at all (no echo, no asterisks that would tell the length).
import { UsageError } from './exit-codes.js';

const ENTER = new Set(['\r', '\n']);
const BACKSPACE = new Set(['\u007f', '\b']);
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';

/** Reads one line from a TTY in raw mode after writing `prompt` to `output`. */
export function readHidden(
  prompt: string,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  output.write(prompt);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise<string>((resolve, reject) => {
    let typed = '';
    const finish = (err: Error | null) => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ENTER.has(ch)) return finish(null);
        if (ch === CTRL_C) return finish(new UsageError('interrupted: no password given'));
        if (ch === CTRL_D) {
          if (typed === '') return finish(new UsageError('no password given'));
          return finish(null);
        }
        if (BACKSPACE.has(ch)) typed = [...typed].slice(0, -1).join('');
        else if (ch === CTRL_U) typed = '';
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}
