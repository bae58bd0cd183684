import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_RESULT_FILE, TERMINATION_MESSAGE_BYTES, buildCommand } from './build-wrapper.ts';

/** Runs the wrapper around a fake builder script; returns its exit code, stdout and termination message. */
function runWrapped(builderSource: string, args: string[] = []): { status: number | null; stdout: string; message: unknown; bytes: number } {
  const dir = mkdtempSync(join(tmpdir(), 'build-wrapper-'));
  const bin = join(dir, 'fake-build.mjs');
  writeFileSync(bin, builderSource);
  const termination = join(dir, 'termination-log');
  const [cmd, ...rest] = buildCommand(bin, args);
  const r = spawnSync(cmd === 'node' ? process.execPath : cmd!, rest, { env: { ...process.env, ORRERY_TERMINATION_LOG: termination, ORRERY_BUILD_RESULT_FILE: join(dir, 'result.json') }, encoding: 'utf8' });
  const body = readFileSync(termination, 'utf8');
  return { status: r.status, stdout: r.stdout, message: JSON.parse(body), bytes: Buffer.byteLength(body) };
}

/**
 * A fake orrery-build: prints `lines`, writes `result` to --result, exits with `code`. It sets
 * process.exitCode as the real one does: process.exit() would drop output still queued for the
 * pipe (it cut a 400-line log at line ~278 about once in 30 runs).
 */
const fakeBuilder = (lines: string[], result: object | undefined, code: number) => `
const i = process.argv.indexOf('--result');
for (const l of ${JSON.stringify(lines)}) console.log(l);
${result ? `require('node:fs').writeFileSync(process.argv[i + 1], ${JSON.stringify(JSON.stringify(result))}); console.log(${JSON.stringify(JSON.stringify(result))});` : ''}
process.exitCode = ${code};
`.replace(/^/, "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);\n");

describe('the build wrapper', () => {
  it('passes the builder its flags plus --result, streams its output and reports the outcome with the log tail', () => {
    const r = runWrapped(fakeBuilder(['added 1 package', 'done'], { phase: 'Succeeded', reason: 'Built', dependencies: 1, sizeBytes: 42 }, 0), ['--sha256', 'ab']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('added 1 package');
    // The outcome line itself is not repeated in the log tail.
    expect(r.message).toEqual({ phase: 'Succeeded', reason: 'Built', dependencies: 1, sizeBytes: 42, exitCode: 0, log: 'added 1 package\ndone' });
    expect(BUILD_RESULT_FILE.startsWith('/tmp/')).toBe(true);
  });

  it('keeps the exit code of a failed build and the end of a long log within the kubelet cap', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `npm ERR! line ${i}`);
    const r = runWrapped(fakeBuilder(lines, { phase: 'Failed', reason: 'DependenciesFailed', message: 'npm install exited 1' }, 2));
    expect(r.status).toBe(2);
    expect(r.bytes).toBeLessThanOrEqual(TERMINATION_MESSAGE_BYTES);
    const m = r.message as { reason: string; exitCode: number; log: string };
    expect(m.reason).toBe('DependenciesFailed');
    expect(m.exitCode).toBe(2);
    // The end of the log is kept (only npm's lines are counted: another line may arrive on stderr).
    expect(m.log.split('\n').filter((l) => l.startsWith('npm ERR!')).at(-1), m.log.slice(-400)).toBe('npm ERR! line 399');
    expect(m.log).not.toContain('"reason":"DependenciesFailed"');
    expect(m.log).not.toContain('npm ERR! line 0\n');
  });

  it('reports a builder that wrote no outcome (a crash) with its exit code and output', () => {
    const r = runWrapped("console.error('boom'); process.exitCode = 1;");
    expect(r.status).toBe(1);
    expect(r.message).toEqual({ exitCode: 1, log: 'boom' });
  });
});
