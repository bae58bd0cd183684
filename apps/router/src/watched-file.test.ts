import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchTextFile, type WatchedFile } from './watched-file.ts';

const dirs: string[] = [];
const watches: WatchedFile[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

describe('watchTextFile', () => {
  it('reads the file now, and a replacement by rename long before the next poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-watched-file-'));
    dirs.push(dir);
    const file = join(dir, 'endpoints.yaml');
    writeFileSync(file, 'one');
    const seen: string[] = [];
    // A 30 s poll: only the folder watch can see the change within the 3 s below.
    watches.push(await watchTextFile(file, (t) => seen.push(t), () => {}, 30_000));
    expect(seen).toEqual(['one']);
    writeFileSync(`${file}.tmp`, 'two');
    renameSync(`${file}.tmp`, file);
    expect(await waitFor(() => seen.includes('two'), 3_000)).toBe(true);
    // Another file in the folder is not a change; the same content is not reported twice.
    writeFileSync(join(dir, 'routes.yaml'), 'x');
    writeFileSync(`${file}.tmp`, 'two');
    renameSync(`${file}.tmp`, file);
    writeFileSync(`${file}.tmp`, 'three');
    renameSync(`${file}.tmp`, file);
    expect(await waitFor(() => seen.includes('three'), 3_000)).toBe(true);
    expect(seen).toEqual(['one', 'two', 'three']);
  });

  it('still polls where the folder cannot be watched, and reports a missing file as an error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-watched-file-'));
    dirs.push(dir);
    const errors: unknown[] = [];
    watches.push(await watchTextFile(join(dir, 'gone', 'endpoints.yaml'), () => {}, (e) => errors.push(e), 50));
    expect(errors.length).toBeGreaterThan(0);
  });
});
