/**
 * The completion spec from the commands' own definitions (their summary and parseArgs options),
 * so a flag added to a command is completed without touching the completion code.
 */
import type { ParseArgsConfig } from 'node:util';
import { COMMAND_POSITIONALS, type CompletedCommand, type CompletedFlag, type CompletionSpec } from './completion-script.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The kinds offered where a kind is expected: the plural forms `orrery get` documents. */
export const COMPLETED_KINDS = ['functions', 'revisions', 'environments', 'registryclusters', 'statesyncs'] as const;
export const COMPLETED_OUTPUTS = ['table', 'wide', 'yaml', 'json', 'name'] as const;

export function completedFlags(options: Options | undefined): CompletedFlag[] {
  return Object.entries(options ?? {})
    .map(([long, o]) => ({ long: `--${long}`, ...(o.short ? { short: `-${o.short}` } : {}), takesValue: o.type === 'string' }))
    .sort((a, b) => a.long.localeCompare(b.long));
}

export function completionSpec(commands: Readonly<Record<string, { summary: string; options?: Options }>>): CompletionSpec {
  const list: CompletedCommand[] = Object.keys(commands)
    .sort()
    .map((name) => ({ name, summary: commands[name]!.summary, flags: completedFlags(commands[name]!.options), positionals: COMMAND_POSITIONALS[name] ?? [] }));
  return { commands: list, kinds: COMPLETED_KINDS, outputs: COMPLETED_OUTPUTS };
}
