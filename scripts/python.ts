// The Python that can run the Python SDK's tests: Debian's own interpreter first (apt-get installs
// python3-httpx and python3-pytest for it), then whatever `python3` is first on PATH (a pyenv one
// does not see Debian's packages).
import { spawnSync } from 'node:child_process';

const CANDIDATES = ['/usr/bin/python3', 'python3'];

/** The first interpreter that imports every module of `modules`, or null. */
export function pythonWith(modules: string[]): string | null {
  for (const python of CANDIDATES) {
    const probe = spawnSync(python, ['-c', modules.map((m) => `import ${m}`).join('; ')], {
      stdio: 'ignore',
    });
    if (probe.status === 0) return python;
  }
  return null;
}
