import { readFile, writeFile } from 'node:fs/promises';
import { buildPackage } from './build-package.ts';
import { BUILD_CLI_USAGE, parseBuildCliArgs } from './build-cli-args.ts';

/** The outcome line orrery-build prints last and writes to --result (Kubernetes' terminationMessagePath). */
export interface BuildResultLine {
  phase: 'Succeeded' | 'Failed';
  reason: string;
  message: string;
  dependencies?: number;
  sizeBytes?: number;
  main?: string;
}

/** orrery-build: exit 0 built, 2 build failed, 1 usage. */
export async function runBuildCli(argv: readonly string[]): Promise<number> {
  const args = parseBuildCliArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n${BUILD_CLI_USAGE}\n`);
    return 1;
  }
  let line: BuildResultLine;
  let archive: Buffer | undefined;
  try {
    archive = await readFile(args.archive);
  } catch (err) {
    line = { phase: 'Failed', reason: 'ArchiveMissing', message: `cannot read ${args.archive}: ${(err as Error).message}` };
  }
  if (archive) {
    const outcome = await buildPackage({
      archive,
      sha256: args.sha256,
      runtime: args.runtime,
      outDir: args.out,
      ...(args.main ? { main: args.main } : {}),
      ...(args.timeoutSeconds ? { timeoutMs: args.timeoutSeconds * 1000 } : {}),
      onLog: (chunk) => process.stdout.write(chunk),
    });
    line = outcome.ok
      ? { phase: 'Succeeded', reason: 'Built', message: `built ${outcome.dependencies} dependencies`, dependencies: outcome.dependencies, sizeBytes: outcome.sizeBytes, main: outcome.main }
      : { phase: 'Failed', reason: outcome.reason, message: outcome.message };
  }
  const json = JSON.stringify(line!);
  if (args.result) await writeFile(args.result, json);
  process.stdout.write(`\n${json}\n`);
  return line!.phase === 'Succeeded' ? 0 : 2;
}
