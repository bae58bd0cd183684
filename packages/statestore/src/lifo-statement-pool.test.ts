import { describe, expect, it } from 'vitest';
import { LifoStatementPool, type StatementClient } from './lifo-statement-pool.ts';

/** A fake client whose statements finish when the test says so. */
function fakeClients() {
  const opened: Array<{ id: number; pending: Array<{ text: string; finish: (err?: Error) => void }> }> = [];
  const open = (): StatementClient => {
    const c = { id: opened.length, pending: [] as Array<{ text: string; finish: (err?: Error) => void }> };
    opened.push(c);
    return {
      unsafe: (text) =>
        new Promise((resolve, reject) => {
          c.pending.push({ text, finish: (err) => (err ? reject(err) : resolve([{ client: c.id, text }])) });
        }),
      end: async () => {},
    };
  };
  return { opened, open };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('LifoStatementPool', () => {
  it('reuses the most recently released connection and opens no more than concurrency needs', async () => {
    const f = fakeClients();
    const pool = new LifoStatementPool(8, f.open);
    const a = pool.run('a', []);
    const b = pool.run('b', []);
    const c = pool.run('c', []);
    expect(pool.opened).toBe(3);
    // Release in the order 0, 2, 1: the next statement must go to 1 (last released), then 2.
    f.opened[0]!.pending.shift()!.finish();
    await a;
    f.opened[2]!.pending.shift()!.finish();
    await c;
    f.opened[1]!.pending.shift()!.finish();
    await b;
    const d = pool.run('d', []);
    const e = pool.run('e', []);
    expect(f.opened[1]!.pending.map((p) => p.text)).toEqual(['d']);
    expect(f.opened[2]!.pending.map((p) => p.text)).toEqual(['e']);
    expect(pool.opened).toBe(3);
    f.opened[1]!.pending.shift()!.finish();
    f.opened[2]!.pending.shift()!.finish();
    expect(await d).toEqual([{ client: 1, text: 'd' }]);
    await e;
    // Sequential use stays on one connection.
    for (let i = 0; i < 5; i++) {
      const p = pool.run(`s${i}`, []);
      await tick();
      const busy = f.opened.filter((o) => o.pending.length > 0);
      expect(busy.map((o) => o.id)).toEqual([2]);
      busy[0]!.pending.shift()!.finish();
      await p;
    }
  });

  it('pipelines on the least busy connection once all are open and busy', async () => {
    const f = fakeClients();
    const pool = new LifoStatementPool(2, f.open);
    const runs = ['a', 'b', 'c', 'd', 'e'].map((t) => pool.run(t, []));
    expect(pool.opened).toBe(2);
    expect(f.opened.map((o) => o.pending.length)).toEqual([3, 2]);
    for (const o of f.opened) for (const p of o.pending.splice(0)) p.finish();
    await Promise.all(runs);
  });

  it('a failed statement rejects and frees its connection', async () => {
    const f = fakeClients();
    const pool = new LifoStatementPool(1, f.open);
    const a = pool.run('a', []);
    f.opened[0]!.pending.shift()!.finish(new Error('boom'));
    await expect(a).rejects.toThrow('boom');
    const b = pool.run('b', []);
    expect(f.opened[0]!.pending.map((p) => p.text)).toEqual(['b']);
    f.opened[0]!.pending.shift()!.finish();
    await b;
  });

  it('with depth > 1 fills the most recently used connection up to depth before opening another', async () => {
    const f = fakeClients();
    const pool = new LifoStatementPool(4, f.open, 3);
    const first = ['a', 'b', 'c', 'd'].map((t) => pool.run(t, []));
    expect(f.opened.map((o) => o.pending.map((p) => p.text))).toEqual([['a', 'b', 'c'], ['d']]);
    // Connection 0 drops below depth: it goes back on top and takes the next statement.
    f.opened[0]!.pending.shift()!.finish();
    await first[0];
    const e = pool.run('e', []);
    expect(f.opened[0]!.pending.map((p) => p.text)).toEqual(['b', 'c', 'e']);
    // Everything at depth and no connection left to open: the least busy one pipelines deeper.
    const more = ['f', 'g', 'h', 'i', 'j', 'k', 'l', 'l2'].map((t) => pool.run(t, []));
    expect(pool.opened).toBe(4);
    expect(f.opened.map((o) => o.pending.length)).toEqual([3, 3, 3, 3]);
    const m = pool.run('m', []);
    expect(f.opened.map((o) => o.pending.length)).toEqual([4, 3, 3, 3]);
    for (const o of f.opened) for (const p of o.pending.splice(0)) p.finish();
    await Promise.all([...first, e, ...more, m]);
    // All idle again: sequential use stays on one connection.
    const n = pool.run('n', []);
    expect(f.opened.filter((o) => o.pending.length > 0)).toHaveLength(1);
    f.opened.find((o) => o.pending.length > 0)!.pending.shift()!.finish();
    await n;
  });
});
