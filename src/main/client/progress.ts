// A one-line progress display on stderr, drawn only when stderr is a terminal (never in pipes, logs
// or --json runs): a bar when the total is known, a spinner otherwise. Redrawn at most every 100 ms.
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const WIDTH = 30;

export interface Progress {
  update(done: number, total: number | null, label: string): void;
  /** Clears the line (the final summary is printed by the command). */
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

export function progressBar(stream: NodeJS.WriteStream, enabled: boolean): Progress {
  if (!enabled || !stream.isTTY) return silent;
  let frame = 0;
  let last = 0;
  let drawn = false;
  const draw = (done: number, total: number | null, label: string) => {
    let text: string;
    if (total && total > 0) {
      const filled = Math.min(WIDTH, Math.round((done / total) * WIDTH));
      text = `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${done}/${total} ${label}`;
    } else {
      text = `${FRAMES[frame++ % FRAMES.length]} ${label}`;
    }
    const columns = stream.columns || 80;
    stream.write(`\r\x1b[2K${text.slice(0, columns - 1)}`);
    drawn = true;
    last = Date.now();
  };
  return {
    update(done, total, label) {
      if (Date.now() - last >= 100) draw(done, total, label);
    },
    stop() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
