/**
 * CPU per request of the orrery-statesvc process, the measure that survives a noisy shared
 * machine better than latency: utime + stime of the service (all its threads, GC and JIT
 * included, from /proc/<pid>/stat) divided by the requests it answered in the window.
 *
 *   npx tsx bench/statesvc/cpu-per-op.ts [--driver postgres|memory] [--ops GET,PUT] [--conns 8,32]
 *     [--seconds 3] [--rounds 3] [--node-flags "--max-semi-space-size=16"] [--cpu-prof DIR] [--read-batching on|off] [--write-batching on|off] [--http-ingress raw|node]
 *
 * Linux only (reads /proc). Prints one line per op × conns × round and the median per cell.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { processCpuSeconds } from '../process-cpu.ts';
import { closedLoopSamples, httpLoad, summarize } from './load.ts';
import { startProcess } from './start-process.ts';

const here = dirname(fileURLToPath(import.meta.url));
const KEYS = 1000;
const VALUE = JSON.stringify('v'.repeat(254));

const { values: args } = parseArgs({
  options: {
    driver: { type: 'string', default: 'postgres' },
    ops: { type: 'string', default: 'GET,PUT' },
    conns: { type: 'string', default: '8,32' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    'node-flags': { type: 'string', default: '' },
    'pool-size': { type: 'string', default: '32' },
    'read-batching': { type: 'string', default: 'on' },
    'write-batching': { type: 'string', default: 'on' },
    'http-ingress': { type: 'string', default: 'raw' },
    'cpu-prof': { type: 'string' },
  },
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-cpu-per-op-'));
  const master = Buffer.alloc(32, 0x42);
  writeFileSync(join(dir, 'master.key'), master.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: bench, keyspace: kv, maxKeys: 100000}\n');
  const headers = { authorization: `Bearer ${deriveStateToken(master, 'bench', 'kv')}`, 'x-orrery-state-namespace': 'bench', 'x-orrery-state-keyspace': 'kv' };
  const putHeaders = { ...headers, 'content-type': 'application/json' };
  const tdb = args.driver === 'postgres' ? await createTestDatabase('orrery_bench') : undefined;
  const nodeArgs = args['node-flags'] ? args['node-flags'].split(/\s+/) : [];
  if (args['cpu-prof']) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', args['cpu-prof']);
  const svcArgs = ['--port', '0', '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), '--driver', args.driver, '--http-ingress', args['http-ingress']];
  if (tdb) svcArgs.push('--database-url', tdb.url, '--pool-size', args['pool-size'], '--read-batching', args['read-batching'], '--write-batching', args['write-batching']);
  const svc = await startProcess([...nodeArgs, join(here, '..', '..', 'apps', 'statesvc', 'bin', 'orrery-statesvc.mjs'), ...svcArgs]);
  try {
    const fill = httpLoad(svc.url, 16);
    for (let i = 0; i < KEYS; i += 16) await Promise.all(Array.from({ length: Math.min(16, KEYS - i) }, (_, j) => fill.request('PUT', `/v1/state/k${i + j}`, putHeaders, VALUE)));
    await fill.close();
    const seconds = Number(args.seconds);
    for (const op of args.ops.split(',') as Array<'GET' | 'PUT'>) {
      for (const conns of args.conns.split(',').map(Number)) {
        const client = httpLoad(svc.url, conns);
        const run = (i: number) => client.request(op, `/v1/state/k${i % KEYS}`, op === 'PUT' ? putHeaders : headers, op === 'PUT' ? VALUE : undefined);
        await closedLoopSamples(conns, 0, 1000, run); // warm-up
        const perOp: number[] = [];
        for (let r = 0; r < Number(args.rounds); r++) {
          const before = processCpuSeconds(svc.proc.pid!);
          const s = await closedLoopSamples(conns, 0, seconds * 1000, run);
          const cpuUs = (processCpuSeconds(svc.proc.pid!) - before) * 1e6;
          const n = s.latencies.length + s.errors;
          const r1 = summarize(s.latencies, seconds, s.errors);
          perOp.push(cpuUs / n);
          console.log(
            `${op} c=${conns} round ${r + 1}: ${(n / seconds).toFixed(0)} ops/s, p50 ${r1.p50Ms.toFixed(2)} ms, p99 ${r1.p99Ms.toFixed(2)} ms, errors ${s.errors}, service CPU ${(cpuUs / n).toFixed(1)} µs/op`,
          );
        }
        await client.close();
        console.log(`${op} c=${conns}: median service CPU ${median(perOp).toFixed(1)} µs/op`);
      }
    }
  } finally {
    await new Promise<void>((r) => {
      svc.proc.once('exit', () => r());
      svc.proc.kill('SIGTERM');
    });
    await tdb?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
