/**
 * The generated scripts run in the real shells: bash always; zsh and fish when installed
 * (apt-get install zsh fish). The names a script asks for come from an `orrery` on PATH that
 * records its arguments and answers like `orrery get <kind> -o name`; the int test
 * (completion.int.test.ts) runs the scripts against the real CLI and admin API.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionScript, type Shell } from './completion-script.ts';
import { completedFlags, completionSpec } from './completion-spec.ts';

const has = (shell: string) => spawnSync(shell, ['-c', 'true']).status === 0;

const spec = completionSpec({
  get: { summary: 'list resources', options: { namespace: { type: 'string', short: 'n' }, output: { type: 'string', short: 'o' }, 'all-namespaces': { type: 'boolean', short: 'A' } } },
  rollback: { summary: "send a function's traffic to one revision", options: { namespace: { type: 'string', short: 'n' } } },
  deploy: { summary: 'code to URL', options: { code: { type: 'string' }, env: { type: 'string' }, 'no-wait': { type: 'boolean' } } },
  completion: { summary: 'print a completion script' },
});

let dir = '';
let calls = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-completion-'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'work', 'handlers'), { recursive: true });
  writeFileSync(join(dir, 'work', 'handlers', 'hello.mjs'), '');
  calls = join(dir, 'calls');
  // Answers per kind like `orrery get <kind> -o name`; records how it was asked.
  writeFileSync(
    join(dir, 'bin', 'orrery'),
    `#!/bin/sh\necho "$*" >> ${calls}\ncase "$2" in functions) printf 'function.orrery.dev/counter\\nfunction.orrery.dev/cart\\n' ;; revisions) printf 'revision.orrery.dev/counter-00001\\n' ;; environments) echo environment.orrery.dev/nodejs ;; esac\n`,
  );
  chmodSync(join(dir, 'bin', 'orrery'), 0o755);
  for (const shell of ['bash', 'zsh', 'fish'] as const) writeFileSync(join(dir, `script.${shell}`), completionScript(shell, spec));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` });
const asked = () => {
  try {
    return readFileSync(calls, 'utf8').trim().split('\n');
  } finally {
    rmSync(calls, { force: true });
  }
};

/** The candidates a shell offers for `words` (the last one is being completed). */
function complete(shell: Shell, words: string[]): string[] {
  const script = join(dir, `script.${shell}`);
  const cwd = join(dir, 'work');
  if (shell === 'fish') {
    const out = execFileSync('fish', ['-c', `source ${script}; complete -C ${JSON.stringify(words.join(' '))}`], { env: env(), cwd, encoding: 'utf8' });
    return out.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort();
  }
  // bash: call the completion function as readline would; zsh: through bashcompinit's compgen.
  const call =
    shell === 'bash'
      ? `COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _orrery; printf '%s\\n' "\${COMPREPLY[@]}"`
      : `COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); compgen -F _orrery -- "\${@[-1]}"`;
  const out = execFileSync(shell, [...(shell === 'zsh' ? ['-f'] : []), '-c', `source ${script}; ${call}`, 'complete', ...words], { env: env(), cwd, encoding: 'utf8' });
  const all = out.split('\n').filter(Boolean);
  // zsh filters by the typed prefix itself after compgen; do the same here.
  return all.filter((c) => c.startsWith(words.at(-1)!)).sort();
}

describe('completion spec', () => {
  it('flags come from the parseArgs options: long, short, and whether a value follows', () => {
    expect(completedFlags({ output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } })).toEqual([
      { long: '--help', short: '-h', takesValue: false },
      { long: '--output', short: '-o', takesValue: true },
    ]);
    expect(spec.commands.map((c) => c.name)).toEqual(['completion', 'deploy', 'get', 'rollback']);
    expect(spec.commands.find((c) => c.name === 'get')!.positionals).toEqual(['kind', 'name-of-kind']);
  });
});

describe.each([
  ['bash', true],
  ['zsh', has('zsh')],
  ['fish', has('fish')],
] as const)('orrery completion %s', (shell, installed) => {
  it.skipIf(!installed)('commands, kinds, -o values, flags and fixed words without asking the platform', () => {
    expect(complete(shell, ['orrery', 'ge'])).toEqual(['get']);
    expect(complete(shell, ['orrery', 'get', ''])).toEqual(['environments', 'functions', 'registryclusters', 'revisions', 'statesyncs']);
    expect(complete(shell, ['orrery', 'get', '-o', ''])).toEqual(['json', 'name', 'table', 'wide', 'yaml']);
    expect(complete(shell, ['orrery', 'get', '--all'])).toEqual(['--all-namespaces']);
    expect(complete(shell, ['orrery', 'deploy', 'x', '--no'])).toEqual(['--no-wait']);
    expect(complete(shell, ['orrery', 'completion', ''])).toEqual(['bash', 'fish', 'zsh']);
    expect(() => asked()).toThrow(); // the platform was not asked
  });

  it.skipIf(!installed)('names lazily, of the kind typed and in the namespace typed', () => {
    expect(complete(shell, ['orrery', 'get', 'functions', '-n', 'shop', 'c'])).toEqual(['cart', 'counter']);
    expect(asked()).toEqual(['get functions -n shop -o name']);
    expect(complete(shell, ['orrery', 'rollback', 'counter', ''])).toEqual(['counter-00001']);
    expect(asked()).toEqual(['get revisions -o name']);
    expect(complete(shell, ['orrery', 'deploy', 'x', '--env', 'n'])).toEqual(['nodejs']);
    expect(asked()).toEqual(['get environments -o name']);
  });

  it.skipIf(!installed || shell === 'zsh')('file flags are left to the shell\'s file completion', () => {
    // bash: no candidates, so readline's default (compopt -o default) completes the file name;
    // zsh does the same through complete -o default, which zsh -c cannot drive.
    expect(complete(shell, ['orrery', 'deploy', 'x', '--code', 'handlers/h'])).toEqual(shell === 'fish' ? ['handlers/hello.mjs'] : []);
    expect(() => asked()).toThrow();
  });
});
