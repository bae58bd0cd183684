/**
 * postgres.js 3.4.9's queue, as Orrery carries it (scripts/dependency-patches/postgres-queue.mjs,
 * applied by `npm install`'s postinstall, scripts/patch-dependencies.mjs). The pool keeps its idle connections in this queue; the original
 * emptied its array only when every entry had been taken, which a pool with more connections than
 * queries in flight never does — so the array grew by one slot per query for the life of the
 * process (performance.md, memory, "postgres.js 3.4.9's pool"). Both copies node loads are
 * checked: the ES module (`import`) and the CommonJS one (`require`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}
type QueueFactory = <T>(initial?: T[]) => Queue<T>;

const require = createRequire(import.meta.url);
// The package's entry (cjs/src/index.js) sits two folders below its root.
const root = join(dirname(require.resolve('postgres')), '..', '..');
const copies: Array<[string, () => Promise<QueueFactory>]> = [
  ['src/queue.js (ES module)', async () => ((await import(pathToFileURL(join(root, 'src', 'queue.js')).href)) as { default: QueueFactory }).default],
  ['cjs/src/queue.js (CommonJS)', async () => require(join(root, 'cjs', 'src', 'queue.js')) as QueueFactory],
];

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe.each(copies)('postgres.js queue, %s', (_name, load) => {
  it('does not grow while it is never emptied (a pool with idle connections to spare)', async () => {
    const Queue = await load();
    const idle = Queue(['c1', 'c2', 'c3', 'c4']);
    gc();
    const before = process.memoryUsage().heapUsed;
    // A query takes the idle connection that waited longest and gives it back when done.
    for (let i = 0; i < 1_000_000; i++) idle.push(idle.shift()!);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(idle.length).toBe(4);
    // Unpatched: one 8-byte slot per query, ~8 MB here.
    expect(grown).toBeLessThan(1024 * 1024);
  });

  it('keeps first-in-first-out order and removals across its compactions', async () => {
    const Queue = await load();
    const q = Queue<number>();
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1500; i++) q.push(next++);
      for (let i = 0; i < 1300; i++) expect(q.shift()).toBe(expected++);
    }
    // Remove one from the middle of what is left; the rest still come out in order.
    const gone = expected + 7;
    expect(q.remove(gone)).toBe(gone);
    expect(q.remove(-1)).toBeNull();
    const rest: number[] = [];
    while (q.length > 0) rest.push(q.shift()!);
    expect(rest).toEqual(Array.from({ length: next - expected }, (_, i) => expected + i).filter((n) => n !== gone));
    expect(q.shift()).toBeUndefined();
  });
});
