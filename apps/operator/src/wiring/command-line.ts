/**
 * The operator's command line on both backends: strict flag parsing, and how a bad flag or
 * `--help` ends the process. Config parsers stay pure by throwing UsageError; only
 * readConfigOrExit prints and exits (2 with the usage for a bad flag, 0 after printing it for --help).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A flag the process cannot start with; the message names the flag and what it takes. */
export class UsageError extends Error {}

/** What a config parser answers: the settings, or `help` when --help was given. */
export type ParsedCommandLine<T> = T | 'help';

/** node:util's strict parseArgs, its errors (an unknown flag, a missing value) as UsageError. */
export function parseFlags<const O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Calls a flag check that throws a plain Error naming its flag (the KPA, revision GC, …), as a UsageError. */
export function flagCheck<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw err instanceof UsageError ? err : new UsageError((err as Error).message);
  }
}

/** Runs a pure config parser: a UsageError ends the process with exit code 2 and the usage; --help prints the usage and exits 0. */
export function readConfigOrExit<T>(usage: string, parse: () => ParsedCommandLine<T>): T {
  let parsed: ParsedCommandLine<T>;
  try {
    parsed = parse();
  } catch (err) {
    if (err instanceof UsageError) exitWithUsage(err.message, usage);
    throw err;
  }
  if (parsed === 'help') {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}

/** `orrery-operator: <message>`, the usage, exit code 2. */
export function exitWithUsage(message: string, usage: string): never {
  process.stderr.write(`orrery-operator: ${message}\n${usage}\n`);
  process.exit(2);
}

/** A start-up step that failed for a reason other than the flags' form (a file, a Secret, the database): exit code 2 without the usage. */
export function exitStartFailed(message: string): never {
  process.stderr.write(`orrery-operator: ${message}\n`);
  process.exit(2);
}
