/**
 * `orrery` entry point. Each sub-command lives in its own file under `commands/` and exports
 * `summary` (one line for help), `options` (its flags) and `run(argv) → exit code`, so commands
 * never share a file; command-list.ts names them.
 */
import { CLI_VERSION } from './cli-version.ts';
import { COMMAND_NAMES, COMMANDS } from './command-list.ts';

async function help(): Promise<void> {
  const lines = ['usage: orrery <command> [flags]', '', 'commands:'];
  for (const name of COMMAND_NAMES) lines.push(`  ${name.padEnd(12)} ${(await COMMANDS[name]!()).summary}`);
  lines.push('', 'Run `orrery <command> --help` for the flags of one command; `orrery --version` for the version.');
  console.log(lines.join('\n'));
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    await help();
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    console.log(`orrery ${CLI_VERSION}`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    console.error(`orrery: unknown command "${name}". Run \`orrery --help\` for the list.`);
    return 2;
  }
  return (await load()).run(rest);
}

process.exitCode = await main(process.argv.slice(2));
