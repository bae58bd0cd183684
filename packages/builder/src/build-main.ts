import { runBuildCli } from './build-cli.ts';

process.exitCode = await runBuildCli(process.argv.slice(2));
