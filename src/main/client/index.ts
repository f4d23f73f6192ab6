// The client half of the `unfurl` binary: commands that call an Unfurl server through the SDK.
// cli.ts hands over any command named here; each answers an exit code (exit-codes.ts).
import { account, ai, monitor, video, web } from './commands/index.js';
import { buildContext, type CommandSpec, usageLine } from './context.js';
import { EXIT, EXIT_CODES_HELP, exitCodeFor, UsageError } from './exit-codes.js';
import { CLIENT_COMMAND_NAMES } from './names.js';
import { type Output, printError } from './output.js';

const COMMANDS: CommandSpec[] = [
  account.register,
  account.login,
  account.logout,
  video.transcript,
  video.video,
  web.scrape,
  web.map,
  web.crawl,
  ai.ocr,
  ai.describe,
  ai.extract,
  monitor.monitor,
  account.jobs,
  account.credits,
  account.usage,
];

const byName = new Map(COMMANDS.map((c) => [c.name, c]));

/** Names without a command (or commands without a name in names.ts): a test keeps this empty. */
export function commandNameMismatches(): string[] {
  const listed = new Set<string>(CLIENT_COMMAND_NAMES);
  return [
    ...COMMANDS.map((c) => c.name).filter((n) => !listed.has(n)),
    ...[...listed].filter((n) => !byName.has(n)),
  ];
}

export function clientHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  return `client commands (call a server: --base-url URL or UNFURL_API_URL, default http://127.0.0.1:8080;
key: --api-key KEY, UNFURL_API_KEY, or the one saved by login/register; --json for machine output;
\`unfurl <command> --help\` for its options):
${lines.join('\n')}

${EXIT_CODES_HELP}`;
}

/** `  --name ARG  description`: the term, then two spaces or more, then the description. */
const OPTION_LINE = /^ {2}(\S+(?: \S+)*) {2,}(\S.*)$/;
/** A description's next line: indented deeper than any term starts. */
const CONTINUED = /^ {4,}(\S.*)$/;

/**
 * Option lines with every description in one column (the widest term's plus two), continuation
 * lines under their description: the command's own options, the shared ones and the common ones
 * are written apart but read as one list.
 */
export function alignOptions(text: string): string {
  const lines = text.split('\n');
  const terms = lines.map((l) => OPTION_LINE.exec(l)?.[1]).filter((t): t is string => t !== undefined);
  if (terms.length === 0) return text;
  const column = 2 + Math.max(...terms.map((t) => t.length)) + 2;
  let inOption = false;
  return lines
    .map((l) => {
      const option = OPTION_LINE.exec(l);
      if (option) {
        inOption = true;
        return `  ${option[1]!.padEnd(column - 2)}${option[2]}`;
      }
      const more = inOption ? CONTINUED.exec(l) : null;
      if (more) return `${' '.repeat(column)}${more[1]}`;
      inOption = false;
      return l;
    })
    .join('\n');
}

function commandHelp(spec: CommandSpec): string {
  const common = `common options:
  --base-url URL  the server (else UNFURL_API_URL, the saved one, http://127.0.0.1:8080)
  --api-key KEY   the key (else UNFURL_API_KEY, the saved one)
  --json          print JSON for programs instead of text`;
  const options = alignOptions([spec.details, common].filter((s) => s !== undefined).join('\n\n'));
  return [usageLine(spec), '', spec.summary, '', options].join('\n');
}

export async function runClient(
  name: string,
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const spec = byName.get(name);
  if (!spec) throw new Error(`no client command "${name}"`);
  const output: Output = { json: argv.includes('--json'), out: process.stdout, err: process.stderr };
  // Ctrl-C stops a wait or a crawl at once; a second Ctrl-C exits the hard way.
  const controller = new AbortController();
  const onSigint = () => {
    process.off('SIGINT', onSigint);
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  try {
    const ctx = buildContext(
      spec,
      argv,
      env,
      { out: process.stdout, err: process.stderr },
      controller.signal,
    );
    if (ctx.values.help) {
      process.stdout.write(`${commandHelp(spec)}\n`);
      return EXIT.ok;
    }
    const [min, max] = spec.positionals;
    if (ctx.positionals.length < min || ctx.positionals.length > max) {
      throw new UsageError(
        min === max ? `expected ${min} argument(s)` : `expected ${min} to ${max} arguments`,
      );
    }
    return await spec.run(ctx);
  } catch (err) {
    if (controller.signal.aborted) {
      process.stderr.write('interrupted\n');
      return EXIT.interrupted;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${usageLine(spec)}\n(see \`unfurl ${spec.name} --help\`)\n`);
      return EXIT.usage;
    }
    printError(output, err);
    return exitCodeFor(err);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
