import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StateStoreError } from './errors.ts';
import { MemoryDriver } from './memory-driver.ts';
import { MEMORY_JOURNAL_FILE } from './memory-journal.ts';
import { STATE_OWNER, type Scope } from './types.ts';

const roots: string[] = [];
const journalIn = () => {
  const d = mkdtempSync(join(tmpdir(), 'orrery-memfences-'));
  roots.push(d);
  return join(d, MEMORY_JOURNAL_FILE);
};
afterAll(() => {
  for (const d of roots) rmSync(d, { recursive: true, force: true });
});

const S: Scope = { namespace: 'default', owner: STATE_OWNER, keyspace: 'cart' };
const open = (path: string) => new MemoryDriver({ journal: { path, fsyncIntervalMs: 0 } });

async function codeAndFence(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  return err instanceof StateStoreError ? `${err.code} ${err.fence}` : 'ok';
}

describe('memory driver: fences in the journal', () => {
  it('a claimed fence survives a restart (and a compaction); no fence is reissued', async () => {
    const path = journalIn();
    let d = open(path);
    const old = await d.claimFence(S, 'k');
    await d.set(S, 'k', '1', { fence: old });
    const current = await d.claimFence(S, 'k');
    await d.close();
    expect(readFileSync(path, 'utf8')).toContain(`"t":"fen","ns":"default","ks":"cart","k":"k","f":${current}`);

    // Reopened (replayed, then compacted into a snapshot), and once more from that snapshot.
    for (let i = 0; i < 2; i++) {
      d = open(path);
      expect(await codeAndFence(d.set(S, 'k', '2', { fence: old }))).toBe(`fenced ${current}`);
      await d.set(S, 'k', '3', { fence: current });
      await d.close();
    }
    d = open(path);
    const next = await d.claimFence(S, 'k');
    expect(next).toBeGreaterThan(current);
    // Versions continue above every fence too (one counter).
    expect((await d.set(S, 'other', '1')).version).toBeGreaterThan(next);
    await d.close();
  });

  it('deleteKeyspace drops the fences for good, also for a keyspace with fences and no rows', async () => {
    const path = journalIn();
    let d = open(path);
    const withRows = await d.claimFence(S, 'k');
    await d.set(S, 'k', '1', { fence: withRows });
    const T = { ...S, keyspace: 'only-fences' };
    const bare = await d.claimFence(T, 'x');
    await d.deleteKeyspace(S);
    await d.deleteKeyspace(T);
    await d.close();
    d = open(path);
    expect(await codeAndFence(d.set(S, 'k', '1', { fence: withRows }))).toBe('fenced 0');
    expect(await codeAndFence(d.set(T, 'x', '1', { fence: bare }))).toBe('fenced 0');
    expect(await d.claimFence(T, 'x')).toBeGreaterThan(bare);
    await d.close();
  });
});
