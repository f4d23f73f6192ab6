// Runs a command on a real pseudo-terminal (python3's pty module: node-pty is not a dependency), and
// types answers when the output shows their prompts. Everything the terminal showed comes back,
// echoes included, so a test sees exactly what a person at the keyboard would.
import { execFile, spawnSync } from 'node:child_process';

export const hasPython = spawnSync('python3', ['--version']).status === 0;

const DRIVER = `
import json, os, pty, select, sys, time
spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvpe(spec['argv'][0], spec['argv'], spec['env'])
out = b''
answers = list(spec['answers'])
deadline = time.time() + spec['timeoutS']
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    if answers and answers[0][0].encode() in out:
        prompt, text = answers.pop(0)
        time.sleep(0.2)
        os.write(fd, text.encode())
        out += b'<<typed>>'
_, status = os.waitpid(pid, 0)
sys.stdout.write(json.dumps({'code': os.waitstatus_to_exitcode(status), 'output': out.decode('utf8', 'replace')}))
`;

export interface PtyResult {
  code: number;
  /** All the terminal showed; `<<typed>>` marks where an answer was typed. */
  output: string;
}

/**
 * Runs `argv` on a pseudo-terminal with exactly `env`; each `[prompt, text]` answer is typed (text
 * as the keys, so end it with `\\r` for Enter) once `prompt` has appeared, in order.
 */
export function runOnPty(
  argv: string[],
  env: Record<string, string>,
  answers: [string, string][] = [],
  timeoutS = 60,
): Promise<PtyResult> {
  const spec = JSON.stringify({ argv, env: { TERM: 'xterm', ...env }, answers, timeoutS });
  return new Promise((resolve, reject) => {
    execFile('python3', ['-c', DRIVER, spec], { timeout: (timeoutS + 10) * 1000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`pty driver failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as PtyResult);
    });
  });
}
