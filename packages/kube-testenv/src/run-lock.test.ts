import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireRunLock } from './run-lock.ts';

const dir = mkdtempSync(join(tmpdir(), 'run-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('acquireRunLock', () => {
  it('a second run waits until the first releases', async () => {
    const path = join(dir, 'a.lock');
    const release1 = await acquireRunLock(() => undefined, path);
    let second = false;
    const p2 = acquireRunLock(() => undefined, path).then((r) => {
      second = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(second).toBe(false);
    release1();
    const release2 = await p2;
    expect(second).toBe(true);
    release2();
  });

  it('is free again once the holder is gone', async () => {
    const path = join(dir, 'b.lock');
    (await acquireRunLock(() => undefined, path))();
    const again = await acquireRunLock(() => undefined, path);
    again();
  });
});
