import { checkFiles, formatProblem } from '../validate/check-files.ts';
import { collectFiles } from '../validate/collect-files.ts';
import { parseCommandArgs } from './command-args.ts';

export const summary = 'check manifests offline with the admission rules (-f <file|dir> …)';

const HELP = `usage: orrery validate -f <file|dir> [-f <file|dir> …]

Validates every YAML document (multi-document files allowed) with the same rules as the
admission webhook and the API, and prints each problem as

  file:line: Kind/name: json.path: reason — what to do

Directories are searched recursively for .yaml/.yml files. Folders named "invalid" are
skipped while walking (examples/invalid holds deliberately broken manifests); name such a
folder directly to check it. An Environment defined in the checked files is used for the
Function rules that depend on it; a keyspace belongs to the first Function in the input that
declares it (state_keyspace_taken for the later ones). Exit status: 0 when everything is valid, 1 when any
problem was found, 2 on a usage error.`;

/** The flags, exported for `orrery completion`. */
export const options = { file: { type: 'string', short: 'f', multiple: true }, help: { type: 'boolean', short: 'h' } } as const;

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs('validate', HELP, argv, {
    options,
    allowPositionals: false,
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const args = values.file ?? [];
  if (args.length === 0) {
    console.error(`orrery validate: name at least one file or directory with -f\n\n${HELP}`);
    return 2;
  }
  const { files, missing } = collectFiles(args);
  for (const m of missing) console.error(`orrery validate: ${m}: no such file or directory`);
  if (missing.length > 0) return 2;

  const { problems, documents } = checkFiles(files);
  for (const p of problems) console.log(formatProblem(p));
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s) in ${documents} document(s) from ${files.length} file(s)`);
    return 1;
  }
  console.log(`OK: ${documents} document(s) in ${files.length} file(s) are valid`);
  return 0;
}
