/**
 * For the tests of the memory driver's journal: before each test a fresh journal path in its own
 * temp dir and the clock back at a fixed start; `reopen()` opens a driver on that journal (what a
 * restart does), on the test's clock, with no fsync delay; every driver it opened is closed after
 * the test, and the temp dirs are removed after the file. Call it inside a `describe`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { MemoryDriver } from './memory-driver.ts';
import { MEMORY_JOURNAL_FILE } from './memory-journal.ts';

export const JOURNAL_TEST_START_MS = 1_700_000_000_000;

export interface MemoryJournalFixture {
  /** The journal of the current test. */
  readonly path: string;
  /** The drivers' clock: tests move `now` to age entries. */
  clock: { now: number };
  reopen: () => MemoryDriver;
}

export function memoryJournalFixture(tempPrefix: string): MemoryJournalFixture {
  const roots: string[] = [];
  const open: MemoryDriver[] = [];
  const clock = { now: JOURNAL_TEST_START_MS };
  let path = '';
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), tempPrefix));
    roots.push(dir);
    path = join(dir, MEMORY_JOURNAL_FILE);
    clock.now = JOURNAL_TEST_START_MS;
  });
  afterEach(async () => {
    for (const d of open.splice(0)) await d.close();
  });
  afterAll(() => {
    for (const d of roots) rmSync(d, { recursive: true, force: true });
  });
  return {
    get path() {
      return path;
    },
    clock,
    reopen: () => {
      const d = new MemoryDriver({ now: () => clock.now, journal: { path, fsyncIntervalMs: 0 } });
      open.push(d);
      return d;
    },
  };
}
