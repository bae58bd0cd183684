import type { BuilderRuntime } from './builder-for-runtime.ts';

export interface BuildCliArgs {
  archive: string;
  sha256: string;
  runtime: BuilderRuntime;
  out: string;
  main?: string;
  timeoutSeconds?: number;
  result?: string;
}

export const BUILD_CLI_USAGE =
  'usage: orrery-build --archive FILE --sha256 HEX --runtime node|python --out DIR [--main PATH] [--timeout-seconds N] [--result FILE]';

/** Parses orrery-build's flags; a string is the usage error to print. */
export function parseBuildCliArgs(argv: readonly string[]): BuildCliArgs | string {
  const values: Record<string, string> = {};
  const known = new Set(['archive', 'sha256', 'runtime', 'out', 'main', 'timeout-seconds', 'result']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) return `unexpected argument ${arg}`;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!known.has(name)) return `unknown flag --${name}`;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) return `--${name} needs a value`;
    values[name] = value;
  }
  for (const required of ['archive', 'sha256', 'runtime', 'out']) if (!values[required]) return `--${required} is required`;
  if (!/^[0-9a-f]{64}$/.test(values['sha256']!)) return '--sha256 must be 64 lower-case hex digits';
  if (values['runtime'] !== 'node' && values['runtime'] !== 'python') return '--runtime must be node or python';
  let timeoutSeconds: number | undefined;
  if (values['timeout-seconds'] !== undefined) {
    timeoutSeconds = Number(values['timeout-seconds']);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) return '--timeout-seconds must be a whole number of seconds, at least 1';
  }
  return {
    archive: values['archive']!,
    sha256: values['sha256']!,
    runtime: values['runtime'],
    out: values['out']!,
    ...(values['main'] ? { main: values['main'] } : {}),
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
    ...(values['result'] ? { result: values['result'] } : {}),
  };
}
