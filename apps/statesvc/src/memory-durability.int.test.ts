/**
 * The memory driver with --data-dir against the real `orrery-statesvc` process: kill -9 after
 * acknowledged writes, restart on the same directory, every acknowledged value and version is back;
 * a second statesvc on a directory in use is refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken, signKeyspaceDeletionUrl } from '@orrery/auth';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 7);

describe('statesvc memory driver with --data-dir', () => {
  let dir: string;
  let dataDir: string;
  let args: string[];
  const running: StatesvcProcess[] = [];
  const start = async () => {
    const p = await spawnStatesvc(args);
    running.push(p);
    return p;
  };
  const headers = { authorization: `Bearer ${deriveStateToken(MASTER, 'default', 'cart')}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' };
  const put = (url: string, key: string, body: string, extra: Record<string, string> = {}) => fetch(`${url}/v1/state/${key}`, { method: 'PUT', headers: { ...headers, ...extra }, body });
  const read = async (url: string, key: string) => {
    const r = await fetch(`${url}/v1/state/${key}`, { headers });
    const body = await r.text();
    return { status: r.status, version: Number(r.headers.get('x-orrery-state-version')), value: r.status === 200 ? JSON.parse(body).value : undefined };
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-memdir-'));
    dataDir = join(dir, 'state');
    writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
    writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: cart}\n- {namespace: default, keyspace: doomed}\n');
    args = ['--driver', 'memory', '--data-dir', dataDir, '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')];
  });
  afterAll(async () => {
    for (const p of running) await p.kill9();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 loses no acknowledged write; versions, deletes and TTLs come back as acknowledged', { timeout: 120_000 }, async () => {
    const first = await start();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'memory-state.journal')).mode & 0o777).toBe(0o600);
    // A few deterministic changes first: an overwrite, a CAS, a delete, a TTL.
    const v1 = (await (await put(first.url, 'counter', '1')).json()).version as number;
    const cas = await fetch(`${first.url}/v1/state/counter/cas`, { method: 'POST', headers, body: JSON.stringify({ expectVersion: v1, value: 2 }) });
    expect(cas.status).toBe(200);
    const vCounter = (await cas.json()).version as number;
    await put(first.url, 'doomed', '"x"');
    expect((await fetch(`${first.url}/v1/state/doomed`, { method: 'DELETE', headers })).status).toBe(200);
    expect((await put(first.url, 'ttl', '"soon"', { 'x-orrery-state-ttl': '3600' })).status).toBe(200);
    // A whole keyspace deleted through the signed admin route.
    const doomedHeaders = { ...headers, authorization: `Bearer ${deriveStateToken(MASTER, 'default', 'doomed')}`, 'x-orrery-state-keyspace': 'doomed' };
    expect((await fetch(`${first.url}/v1/state/k`, { method: 'PUT', headers: doomedHeaders, body: '1' })).status).toBe(200);
    const dropped = await fetch(first.url + signKeyspaceDeletionUrl(MASTER, 'default', 'doomed', Math.floor(Date.now() / 1000) + 60), { method: 'DELETE' });
    expect(await dropped.json()).toEqual({ deleted: 1 });

    // Then 16 writers, each key written once (so value and version are exact), killed mid-flight.
    const acked = new Map<string, { version: number; value: unknown }>();
    let stop = false;
    const writers = Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const key = `w${w}-${i}`;
        const value = { w, i, pad: 'p'.repeat(i % 50) };
        try {
          const r = await put(first.url, key, JSON.stringify(value));
          if (r.status === 200) acked.set(key, { version: (await r.json()).version, value });
        } catch {
          return; // connection died with the process: this write was never acknowledged
        }
      }
    });
    const deadline = Date.now() + 60_000;
    while (acked.size < 400 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await first.kill9();
    stop = true;
    await Promise.all(writers);
    expect(acked.size).toBeGreaterThanOrEqual(400);
    const highest = Math.max(vCounter, ...[...acked.values()].map((a) => a.version));

    // The lock of the killed process is stale: the restart takes it over.
    const second = await start();
    expect(second.stderr()).toMatch(/memory driver: .*memory-state\.journal: \d+ live key\(s\)/);
    for (const [key, { version, value }] of acked) {
      const r = await read(second.url, key);
      expect({ key, ...r }).toEqual({ key, status: 200, version, value });
    }
    expect(await read(second.url, 'counter')).toEqual({ status: 200, version: vCounter, value: 2 });
    expect((await read(second.url, 'doomed')).status).toBe(404);
    const ttl = await fetch(`${second.url}/v1/state/ttl`, { headers });
    expect(ttl.status).toBe(200);
    expect(Number(ttl.headers.get('x-orrery-state-ttl'))).toBeGreaterThan(3500);
    await ttl.arrayBuffer();
    expect((await fetch(`${second.url}/v1/state/k`, { headers: doomedHeaders })).status).toBe(404);
    // New versions continue above everything acknowledged before the crash.
    const next = (await (await put(second.url, 'after-restart', 'true')).json()).version as number;
    expect(next).toBeGreaterThan(highest);

    // A graceful stop releases the lock; a third start reads the same state.
    await second.stop();
    expect(existsSync(join(dataDir, 'lock'))).toBe(false);
    const third = await start();
    expect(await read(third.url, 'after-restart')).toEqual({ status: 200, version: next, value: true });
    await third.stop();
  });

  it('refuses a second statesvc on a data dir in use, and leaves the first one serving', { timeout: 90_000 }, async () => {
    const first = await start();
    const lock = readFileSync(join(dataDir, 'lock'), 'utf8');
    expect(lock.split('\n')[0]).toBe(String(first.proc.pid));
    const second = await spawnStatesvc(args).then(
      (p) => {
        running.push(p);
        return undefined;
      },
      (err: unknown) => err as Error,
    );
    expect(second?.message).toMatch(/exited with 1 before listening/);
    expect(second?.message).toMatch(new RegExp(`data directory .* is in use by another process \\(pid ${first.proc.pid}\\)`));
    expect(readFileSync(join(dataDir, 'lock'), 'utf8')).toBe(lock);
    expect((await put(first.url, 'still-here', '1')).status).toBe(200);
    await first.stop();
  });
});
