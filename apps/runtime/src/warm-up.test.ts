import { describe, expect, it } from 'vitest';
import { warmSpecializeBody } from './warm-up.ts';

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
