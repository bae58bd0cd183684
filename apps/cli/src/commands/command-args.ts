import { parseArgs, type ParseArgsConfig } from 'node:util';

type CommandConfig = Omit<ParseArgsConfig, 'args' | 'strict'>;

/**
 * Every command's flag parsing: strict options, `-h/--help` prints the help (exit 0), a bad flag
 * prints what was wrong and the help (exit 2). Returns the parsed flags, or the exit code to end with.
 */
export function parseCommandArgs<const T extends CommandConfig>(
  command: string,
  help: string,
  argv: string[],
  config: T,
): ReturnType<typeof parseArgs<T & { args: string[]; strict: true }>> | number {
  let parsed: ReturnType<typeof parseArgs<T & { args: string[]; strict: true }>>;
  try {
    parsed = parseArgs({ ...config, args: argv, strict: true });
  } catch (err) {
    console.error(`orrery ${command}: ${(err as Error).message}\n\n${help}`);
    return 2;
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(help);
    return 0;
  }
  return parsed;
}
