/**
 * `orrery deploy` and `orrery describe function` against a real local operator (embedded store,
 * admin API, workers as processes): code to a ready revision and its URL, an update that keeps
 * what the flags do not name, a crashing revision reported with the operator's reason (exit 1)
 * and shown by describe with its workers' errors, bad flags refused before anything is sent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OrreryFunction } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalOperator, type LocalOperator } from '../testing/local-operator.ts';

let op: LocalOperator;
beforeAll(async () => {
  op = await startLocalOperator();
  writeFileSync(join(op.dir, 'hello.mjs'), "export default async () => Response.json({ hello: 'world' });\n");
  writeFileSync(join(op.dir, 'hello2.mjs'), "export default async () => Response.json({ hello: 'again' });\n");
  writeFileSync(join(op.dir, 'broken.mjs'), 'export default async () => {\n');
}, 90_000);
afterAll(() => op?.close(), 60_000);

const stored = async (name: string) => JSON.parse((await op.orrery(['get', 'function', name, '-o', 'json'])).out) as OrreryFunction;

describe('orrery deploy', () => {
  it('code to a ready revision: progress lines, the URL and a curl to paste', { timeout: 90_000 }, async () => {
    const r = await op.orrery(['deploy', 'hello', '--code', './hello.mjs', '--timeout', '60s']);
    expect(r.code, r.err + op.output().slice(-2000)).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toBe('function.orrery.dev/hello created');
    expect(lines).toContain('revision hello-00001 ready, serving 100% of traffic');
    expect(lines.at(-2)).toMatch(/^URL: http:\/\/\S+\/default\/hello$/);
    expect(lines.at(-1)).toMatch(/^curl 'http:\/\/\S+\/default\/hello\/'$/);
    expect((await stored('hello')).spec.template.source).toEqual({ inline: "export default async () => Response.json({ hello: 'world' });\n" });
  });

  it('an update changes only what the flags name, and maps each flag to its field', { timeout: 90_000 }, async () => {
    await op.orrery(['traffic', 'set', 'hello', 'latest=100']);
    const r = await op.orrery(['deploy', 'hello', '--code', 'hello2.mjs', '--concurrency', '2', '--scale', '1:3', '--timeout', '60s']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('function.orrery.dev/hello configured');
    expect(r.out).toContain('revision hello-00002 ready');
    const fn = await stored('hello');
    expect(fn.spec.template).toMatchObject({ source: { inline: expect.stringContaining('again') as string }, containerConcurrency: 2, autoscaling: { minScale: 1, maxScale: 3 } });
    expect(fn.spec.traffic).toEqual([{ latestRevision: true, percent: 100 }]);
    // The same code again: nothing to roll out, the ready revision is reported at once.
    const again = await op.orrery(['deploy', 'hello', '--timeout', '30s']);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain('function.orrery.dev/hello unchanged');
    expect(again.out).toContain('revision hello-00002 ready');
  });

  it('a revision that crashes fails the deploy with the operator\'s reason; describe shows it and the workers\' errors', { timeout: 90_000 }, async () => {
    const r = await op.orrery(['deploy', 'hello', '--code', 'broken.mjs', '--timeout', '60s']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/revision hello-00003 failed: WorkerCrashing — workers keep exiting/);
    expect(r.err).toContain('orrery describe function hello');
    const d = await op.orrery(['describe', 'function', 'hello', '--data-dir', op.dataDir]);
    expect(d.code, d.err).toBe(0);
    expect(d.out).toMatch(/Ready:\s+False \(RevisionFailed\)/);
    expect(d.out).toMatch(/hello-00003\s+False \(WorkerCrashing\)\s+0\/\d+\s+\S+\s+0%/);
    expect(d.out).toMatch(/hello-00002\s+True\s+\d+\/\d+\s+\S+\s+100%/);
    expect(d.out).toMatch(/ConfigurationsReady\s+False\s+WorkerCrashing/);
    expect(d.out).toContain('Conditions of hello-00003:');
    // The local operator's Events (GET /v1/events, read with the store token of --data-dir).
    expect(d.out).toMatch(/Events:\n\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n(.*\n)*\s+\S+\s+Warning\s+\S+\s+(Function\/hello|Revision\/hello-00003)\s/);
    expect(d.out).toMatch(/Worker errors:\n(.*\n)*\s+\[hello-00003-\d+\] orrery-runtime: cannot load function default\/hello/);
  });

  it('bad flags: exit 2 and nothing sent; --no-wait returns after the apply; --timeout gives up with exit 1', { timeout: 90_000 }, async () => {
    // The status moves on (the crashing revision); the spec must not.
    const before = (await stored('hello')).metadata.generation;
    for (const args of [['--scale', '5:1'], ['--sticky', 'X-User'], ['--concurrency', 'many'], ['--code', 'missing.mjs'], ['--bogus']]) {
      const r = await op.orrery(['deploy', 'hello', '--code', 'hello.mjs', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/orrery deploy: /);
    }
    expect((await op.orrery(['deploy', 'hello', '--code', 'hello.mjs', '--sticky', 'header:X-User'])).err).toContain('--sticky needs a stateful function: add --state KEYSPACE');
    expect((await stored('hello')).metadata.generation).toBe(before);

    const noWait = await op.orrery(['deploy', 'nowait', '--code', 'hello.mjs', '--no-wait']);
    expect(noWait).toMatchObject({ code: 0, out: 'function.orrery.dev/nowait created\n' });
    const late = await op.orrery(['deploy', 'late', '--code', 'hello2.mjs', '--timeout', '1ms']);
    expect(late.code).toBe(1);
    expect(late.err).toMatch(/still not ready after 1ms .*it goes on/);
  });
});
