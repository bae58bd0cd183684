import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@orrery/log';
import { warmActivation, warmSpecializeBody } from './warm-up.ts';

describe('pool warm-up of the specialize body path', () => {
  it('reads and validates a sample body the whole way (a rejected sample would warm only the error path) and activates nothing', async () => {
    const parsed = await warmSpecializeBody();
    expect(parsed.ok, parsed.ok ? '' : parsed.error).toBe(true);
    if (!parsed.ok) return;
    // Every optional part of a real specialize call is in the sample, so its parsing is warmed too.
    expect(parsed.assignment).toMatchObject({ namespace: 'warm-up', function: 'warm-up', revision: 'warm-up-00001', env: { WARM_UP: '1' } });
    expect(parsed.assignment.state?.credentials.keyspace).toBe('warm-up');
    expect(parsed.assignment.registryCredential).toBe('0'.repeat(64));
  });
});

describe('pool warm-up of the activation path', () => {
  it('activates the sample in a scratch folder it removes, leaves process.env alone and logs only to the silent logger', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'warm-activation-'));
    const lines: string[] = [];
    const envBefore = { ...process.env };
    try {
      await warmActivation(await warmSpecializeBody(), workDir, createLogger({ component: 'runtime', level: 'info', format: 'json', destination: { write: (l: string) => lines.push(l) } }));
      // The activation really ran: its two records (token file, function loaded) reached the given logger.
      expect(lines.some((l) => l.includes('state token file written'))).toBe(true);
      expect(lines.some((l) => l.includes('function loaded'))).toBe(true);
      // …and its token file and module are gone with the scratch folder.
      expect(await readdir(workDir)).toEqual([]);
      expect(process.env).toEqual(envBefore);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });

  it('refuses a sample that did not parse instead of activating half of it', async () => {
    await expect(warmActivation({ ok: false, error: 'broken' }, '/nonexistent', createLogger({ component: 'runtime', level: 'info', format: 'json', destination: { write: () => true } }))).rejects.toThrow(/warm-up sample refused: broken/);
  });
});
