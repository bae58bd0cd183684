/**
 * What a component's whole output must look like (the per-component log tests use it): every
 * line a JSON record with string `level`, `time`, `msg` and the component's name, except the one
 * `listening …` handshake line a server prints on stdout for whoever started it.
 */

const HANDSHAKE = /^listening https?:\/\/\S+( admin https?:\/\/\S+)?$/;
const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);

export interface LogOutput {
  stdout: string;
  stderr: string;
}

/** Problems with the output, one per offending line; empty when it is all well-formed. */
export function logLineProblems(out: LogOutput, component: string): string[] {
  const problems: string[] = [];
  const check = (stream: 'stdout' | 'stderr', line: string) => {
    if (stream === 'stdout' && HANDSHAKE.test(line)) return;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return problems.push(`${stream}: not JSON: ${line.slice(0, 200)}`);
    }
    if (r === null || typeof r !== 'object' || Array.isArray(r)) return problems.push(`${stream}: not a record: ${line.slice(0, 200)}`);
    if (!LEVELS.has(r.level as string)) problems.push(`${stream}: level ${JSON.stringify(r.level)}: ${line.slice(0, 200)}`);
    if (typeof r.time !== 'string' || Number.isNaN(Date.parse(r.time))) problems.push(`${stream}: time ${JSON.stringify(r.time)}: ${line.slice(0, 200)}`);
    if (r.component !== component) problems.push(`${stream}: component ${JSON.stringify(r.component)}, not ${component}: ${line.slice(0, 200)}`);
    if (typeof r.msg !== 'string') problems.push(`${stream}: no msg: ${line.slice(0, 200)}`);
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    for (const line of out[stream].split('\n')) if (line !== '') check(stream, line);
  }
  return problems;
}

/** The records of a component's stderr (lines that are not JSON are left out). */
export function logRecords(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}
