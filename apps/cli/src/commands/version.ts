import { CLI_VERSION } from '../cli-version.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'print the CLI version (also: orrery --version)';

const HELP = `usage: orrery version
Prints the version of this orrery CLI (from its package.json), e.g. "orrery 0.1.0".`;

/** The flags, exported for `orrery completion`. */
export const options = { help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('version', HELP, argv, { options });
  if (typeof parsed === 'number') return parsed;
  console.log(`orrery ${CLI_VERSION}`);
  return 0;
}
