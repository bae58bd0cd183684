/**
 * `orrery` entry point. Each sub-command lives in its own file under `commands/` and exports
 * `summary` (one line for help) and `run(argv) → exit code`, so commands never share a file.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}

const commandsDir = join(dirname(fileURLToPath(import.meta.url)), 'commands');

function commandNames(): string[] {
  return readdirSync(commandsDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => f.slice(0, -3))
    .sort();
}

async function load(name: string): Promise<Command> {
  return (await import(join(commandsDir, `${name}.ts`))) as Command;
}

/** A file in commands/ is a command when it exports run (command-args.ts is shared parsing, not one). */
async function loadCommand(name: string): Promise<Command | undefined> {
  const m = await load(name);
  return typeof m.run === 'function' ? m : undefined;
}

async function help(): Promise<void> {
  const lines = ['usage: orrery <command> [flags]', '', 'commands:'];
  for (const name of commandNames()) {
    const c = await loadCommand(name);
    if (c) lines.push(`  ${name.padEnd(12)} ${c.summary}`);
  }
  lines.push('', 'Run `orrery <command> --help` for the flags of one command.');
  console.log(lines.join('\n'));
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    await help();
    return name ? 0 : 2;
  }
  const command = commandNames().includes(name) ? await loadCommand(name) : undefined;
  if (!command) {
    console.error(`orrery: unknown command "${name}". Run \`orrery --help\` for the list.`);
    return 2;
  }
  return command.run(rest);
}

process.exitCode = await main(process.argv.slice(2));
