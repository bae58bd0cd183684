import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', 'bin', 'orrery-operator.mjs');

/** The operator started with `args`; a usage error exits before it opens anything. */
async function operator(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const cleanEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env };
  return promisify(execFile)(process.execPath, [BIN, ...args], { env: cleanEnv, timeout: 85_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code?: number; stderr?: string }) => ({ code: err.code ?? -1, stderr: err.stderr ?? '' }),
  );
}

describe('the operator’s log and trace settings (both backends, one parser)', () => {
  it('a bad --log-level is a usage error naming the levels, on both backends', { timeout: 120_000 }, async () => {
    const outs = await Promise.all([operator(['--log-level', 'loud']), operator(['--backend', 'kubernetes', '--log-level', 'loud'])]);
    for (const out of outs) {
      expect(out.code).toBe(2);
      expect(out.stderr).toMatch(/^orrery-operator: --log-level must be one of trace, debug, info, .*got "loud"$/m);
      expect(out.stderr).toContain('usage: orrery-operator');
    }
  });

  it('a bad ORRERY_LOG_FORMAT and a bad OTLP endpoint are usage errors too', { timeout: 120_000 }, async () => {
    const [format, otlp] = await Promise.all([operator(['--backend', 'kubernetes'], { ORRERY_LOG_FORMAT: 'xml' }), operator(['--otlp-endpoint', 'not a url'])]);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/^orrery-operator: .*ORRERY_LOG_FORMAT/m);
    expect(otlp.code).toBe(2);
    expect(otlp.stderr).toMatch(/^orrery-operator: .*not a url/m);
  });
});
