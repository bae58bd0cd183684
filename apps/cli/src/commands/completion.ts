import { COMMAND_NAMES, COMMANDS } from '../command-list.ts';
import { completionScript, SHELLS, type Shell } from '../completion/completion-script.ts';
import { completionSpec } from '../completion/completion-spec.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'print a shell completion script: completion bash|zsh|fish';

const HELP = `usage: orrery completion bash|zsh|fish

Prints a script that completes commands, flags, kinds and -o values, and resource names (asked
for only when one is being completed, with \`orrery get <kind> [-n ns] -o name\`, so the
names come from the platform the CLI talks to). Load it in the current shell:

  source <(orrery completion bash)        # bash (or save it in /etc/bash_completion.d/orrery)
  source <(orrery completion zsh)         # zsh (or save it as _orrery in a folder of $fpath)
  orrery completion fish | source         # fish (or ~/.config/fish/completions/orrery.fish)`;

/** The flags, exported for `orrery completion`. */
export const options = { help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('completion', HELP, argv, { options, allowPositionals: true });
  if (typeof parsed === 'number') return parsed;
  const [shell, ...extra] = parsed.positionals;
  if (!shell || extra.length > 0 || !(SHELLS as readonly string[]).includes(shell)) {
    console.error(`orrery completion: name one shell: ${SHELLS.join(', ')}${shell ? ` (got ${JSON.stringify(shell)})` : ''}\n\n${HELP}`);
    return 2;
  }
  const loaded = Object.fromEntries(await Promise.all(COMMAND_NAMES.map(async (name) => [name, await COMMANDS[name]!()] as const)));
  process.stdout.write(completionScript(shell as Shell, completionSpec(loaded)));
  return 0;
}
