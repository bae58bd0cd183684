/**
 * Change feed fan-out (docs/state.md "Change feed"): one write, 500 open `GET /v1/changes`
 * streams; the delivery latency of each is write sent → event received. Baseline in the same
 * run, interleaved round by round: the same write, then 500 readers each doing a plain GET of the
 * key as soon as the write is acknowledged (write sent → GET answered) — what readers would pay
 * to learn of the write by asking. Prints p50 and p99 of both and the ratios, for the memory
 * driver, Postgres (readers and writer on one statesvc) and Postgres across two statesvc
 * processes (readers on one, writes through the other: the NOTIFY path).
 *
 * BENCH_FEED_READERS (default 500) and BENCH_FEED_ROUNDS (default 20) size it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { percentile } from './load.ts';
import { startProcess } from './start-process.ts';

const here = dirname(fileURLToPath(import.meta.url));
const READERS = Number(process.env.BENCH_FEED_READERS ?? 500);
const ROUNDS = Number(process.env.BENCH_FEED_ROUNDS ?? 20);
const VALUE = JSON.stringify('v'.repeat(254));

const stop = (p: ChildProcess) => new Promise<void>((r) => { p.once('exit', () => r()); p.kill('SIGTERM'); });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reader {
  /** The version a change carries → when it arrived (performance.now()). */
  seen: Map<number, number>;
  close(): void;
}

/** One SSE stream; records when each change arrives. */
function openReader(url: string, headers: Record<string, string>, agent: Agent): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const seen = new Map<number, number>();
    const req = request(`${url}/v1/changes`, { headers, agent }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /v1/changes answered ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now();
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const m = /"version":(\d+)/.exec(block);
          if (m) seen.set(Number(m[1]), now);
        }
      });
      resolve({ seen, close: () => req.destroy() });
    });
    req.on('error', (err) => reject(err));
    req.end();
  });
}

/** Resolves with the version written. */
function put(url: string, key: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/state/${key}`, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => (res.statusCode === 200 ? resolve((JSON.parse(body) as { version: number }).version) : reject(new Error(`PUT answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(VALUE);
  });
}

function get(url: string, key: string, headers: Record<string, string>, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/state/${key}`, { headers, agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`GET answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Cell {
  name: string;
  feed: number[];
  base: number[];
  missed: number;
}

async function measure(name: string, writeUrl: string, readUrl: string, headers: Record<string, string>): Promise<Cell> {
  const streamAgent = new Agent({ keepAlive: true, maxSockets: READERS + 10 });
  const getAgent = new Agent({ keepAlive: true, maxSockets: READERS + 10 });
  const writeAgent = new Agent({ keepAlive: true, maxSockets: 2 });
  const readers: Reader[] = [];
  for (let i = 0; i < READERS; i += 50) readers.push(...(await Promise.all(Array.from({ length: Math.min(50, READERS - i) }, () => openReader(readUrl, headers, streamAgent)))));
  const cell: Cell = { name, feed: [], base: [], missed: 0 };
  // Warm the GET connections and both paths once (across replicas this also waits for the LISTEN connection).
  const warm = await put(writeUrl, 'hot', headers, writeAgent);
  await Promise.all(Array.from({ length: READERS }, () => get(readUrl, 'hot', headers, getAgent)));
  for (let i = 0; i < 500 && readers.some((r) => !r.seen.has(warm)); i++) await sleep(10);
  await sleep(200);
  for (let round = 0; round < ROUNDS; round++) {
    // Feed side: one write, every stream receives it (matched by the version the write answered).
    const t0 = performance.now();
    const expected = await put(writeUrl, 'hot', headers, writeAgent);
    const deadline = performance.now() + 5_000;
    while (readers.some((r) => !r.seen.has(expected)) && performance.now() < deadline) await sleep(1);
    for (const r of readers) {
      const at = r.seen.get(expected);
      if (at === undefined) cell.missed++;
      else cell.feed.push(at - t0);
    }
    await sleep(100);
    // Baseline: the same write, then each reader asks with a plain GET once it is acknowledged.
    const t1 = performance.now();
    await put(writeUrl, 'hot', headers, writeAgent);
    const done = await Promise.all(Array.from({ length: READERS }, () => get(readUrl, 'hot', headers, getAgent).then(() => performance.now())));
    for (const at of done) cell.base.push(at - t1);
    await sleep(100);
  }
  for (const r of readers) r.close();
  streamAgent.destroy();
  getAgent.destroy();
  writeAgent.destroy();
  return cell;
}

const fmt = (n: number) => n.toFixed(1).padStart(7);

export async function runChangeFeedBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-bench-feed-'));
  const master = Buffer.alloc(32, 0x46);
  writeFileSync(join(dir, 'master.key'), master.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: bench, keyspace: feed}\n');
  const headers = { authorization: `Bearer ${deriveStateToken(master, 'bench', 'feed')}`, 'x-orrery-state-namespace': 'bench', 'x-orrery-state-keyspace': 'feed' };
  const bin = join(here, '..', '..', 'apps', 'statesvc', 'bin', 'orrery-statesvc.mjs');
  const common = [bin, '--port', '0', '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), '--changes-max-streams', String(READERS + 10)];
  const tdb = await createTestDatabase('orrery_bench');
  const cells: Cell[] = [];
  const started = Date.now();
  try {
    const mem = await startProcess([...common, '--driver', 'memory']);
    cells.push(await measure('memory', mem.url, mem.url, headers));
    await stop(mem.proc);
    const [a, b] = await Promise.all([
      startProcess([...common, '--driver', 'postgres', '--database-url', tdb.url]),
      startProcess([...common, '--driver', 'postgres', '--database-url', tdb.url]),
    ]);
    cells.push(await measure('postgres, one statesvc', a.url, a.url, headers));
    cells.push(await measure('postgres, write via another statesvc', a.url, b.url, headers));
    await Promise.all([stop(a.proc), stop(b.proc)]);
  } finally {
    await tdb.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nbench/statesvc change feed — ${READERS} readers, ${ROUNDS} writes per side (interleaved), run took ${((Date.now() - started) / 1000).toFixed(0)}s`);
  console.log('feed: write sent → event received on each open stream; baseline: write sent → each reader\'s plain GET answered (GETs sent on the ack)');
  console.log('cell                                  feed p50  feed p99 | GET p50  GET p99 | p50 ratio  p99 ratio  missed');
  for (const c of cells) {
    const f = Float64Array.from(c.feed).sort();
    const g = Float64Array.from(c.base).sort();
    const [fp50, fp99, gp50, gp99] = [percentile(f, 50), percentile(f, 99), percentile(g, 50), percentile(g, 99)];
    console.log(`${c.name.padEnd(36)} ${fmt(fp50)}ms ${fmt(fp99)}ms | ${fmt(gp50)}ms ${fmt(gp99)}ms | ${(fp50 / gp50).toFixed(2).padStart(9)} ${(fp99 / gp99).toFixed(2).padStart(10)} ${String(c.missed).padStart(7)}`);
  }
  console.log('\ntarget: feed p99 < 100 ms on this machine (issue 22)');
  for (const c of cells) {
    const p99 = percentile(Float64Array.from(c.feed).sort(), 99);
    console.log(`  ${p99 < 100 && c.missed === 0 ? 'ok  ' : 'MISS'} ${c.name}: p99 ${p99.toFixed(1)} ms${c.missed ? `, ${c.missed} deliveries missing` : ''}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runChangeFeedBench();
