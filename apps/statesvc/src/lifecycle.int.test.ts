/** Process-level behaviour: key rotation, pass-through mode, flag errors, kill -9 durability. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { spawnStatesvc, STATESVC_BIN, type StatesvcProcess } from './spawn-statesvc.ts';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);

describe('statesvc process lifecycle', () => {
  let dir: string;
  const running: StatesvcProcess[] = [];
  const start = async (args: string[]) => {
    const p = await spawnStatesvc(args);
    running.push(p);
    return p;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-life-'));
    writeFileSync(join(dir, 'old.key'), OLD.toString('hex'));
    writeFileSync(join(dir, 'new.key'), NEW.toString('hex'));
    writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: cart}\n');
  });
  afterAll(async () => {
    for (const p of running) await p.kill9();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, token: string) =>
    fetch(`${url}/v1/state/k`, { headers: { authorization: `Bearer ${token}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' } });

  it('rotation: the previous key works only while it is configured', { timeout: 90_000 }, async () => {
    const oldToken = deriveStateToken(OLD, 'default', 'cart');
    const newToken = deriveStateToken(NEW, 'default', 'cart');
    const during = await start(['--master-key-file', join(dir, 'new.key'), '--previous-master-key-file', join(dir, 'old.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
    expect((await get(during.url, oldToken)).status).toBe(404); // authorised; the key just does not exist
    expect((await get(during.url, newToken)).status).toBe(404);
    await during.stop();
    const after = await start(['--master-key-file', join(dir, 'new.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
    expect((await get(after.url, oldToken)).status).toBe(403);
    expect((await get(after.url, newToken)).status).toBe(404);
    await after.stop();
  });

  it('pass-through mode accepts any bearer, only with the flag, and warns', { timeout: 60_000 }, async () => {
    const p = await start(['--insecure-pass-through', '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
    expect((await get(p.url, 'anything')).status).toBe(404);
    expect(p.stderr()).toMatch(/WARNING: --insecure-pass-through/);
    await p.stop();
    const noKey = spawnSync(process.execPath, [STATESVC_BIN, '--port', '0'], { encoding: 'utf8', timeout: 30_000 });
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toMatch(/--master-key-file .* or --insecure-pass-through/);
    const both = spawnSync(process.execPath, [STATESVC_BIN, '--port', '0', '--insecure-pass-through', '--master-key-file', join(dir, 'new.key')], { encoding: 'utf8', timeout: 30_000 });
    expect(both.status).toBe(2);
    const badDriver = spawnSync(process.execPath, [STATESVC_BIN, '--driver', 'redis'], { encoding: 'utf8', timeout: 30_000 });
    expect(badDriver.status).toBe(2);
    expect(badDriver.stderr).toMatch(/--driver must be one of memory, postgres/);
  });

  it('re-reads the keyspaces file when it changes; a broken file keeps the previous table', { timeout: 60_000 }, async () => {
    const file = join(dir, 'reload.yaml');
    writeFileSync(file, '- {namespace: default, keyspace: cart}\n');
    const p = await start(['--insecure-pass-through', '--keyspaces-file', file]);
    const status = (ks: string) =>
      fetch(`${p.url}/v1/state/k`, { headers: { authorization: 'Bearer x', 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': ks } }).then((r) => r.status);
    expect(await status('late')).toBe(403);
    writeFileSync(file, '- {namespace: default, keyspace: cart}\n- {namespace: default, keyspace: late}\n');
    const until = async (want: number) => {
      const deadline = Date.now() + 30_000;
      while ((await status('late')) !== want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      return status('late');
    };
    expect(await until(404)).toBe(404);
    writeFileSync(file, '- {namespace: default, keyspace: "Bad!"}\n');
    const deadline = Date.now() + 30_000;
    while (!/keeping the previous keyspace declarations/.test(p.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(p.stderr()).toMatch(/keeping the previous keyspace declarations/);
    expect(await status('late')).toBe(404);
    await p.stop();
  });

  describe('kill -9 on Postgres', () => {
    let tdb: Awaited<ReturnType<typeof createTestDatabase>>;
    beforeAll(async () => { tdb = await createTestDatabase(); });
    afterAll(async () => { await tdb?.drop(); });

    it('loses no acknowledged write', { timeout: 120_000 }, async () => {
      const args = ['--driver', 'postgres', '--database-url', tdb.url, '--master-key-file', join(dir, 'new.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')];
      const token = deriveStateToken(NEW, 'default', 'cart');
      const headers = { authorization: `Bearer ${token}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' };
      const first = await start(args);
      const acked = new Map<string, number>();
      let stop = false;
      // 16 writers keep writing; the kill lands while requests are in flight.
      const writers = Array.from({ length: 16 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const key = `w${w}-${i % 40}`;
          try {
            const r = await fetch(`${first.url}/v1/state/${key}`, { method: 'PUT', headers, body: JSON.stringify({ w, i }) });
            if (r.status === 200) acked.set(key, (await r.json()).version);
          } catch {
            return; // connection died with the process: this write was never acknowledged
          }
        }
      });
      const deadline = Date.now() + 60_000;
      while (acked.size < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await first.kill9();
      stop = true;
      await Promise.all(writers);
      expect(acked.size).toBeGreaterThanOrEqual(300);
      const second = await start(args);
      for (const [key, version] of acked) {
        const r = await fetch(`${second.url}/v1/state/${key}`, { headers });
        expect(r.status, key).toBe(200);
        // The acknowledged version or a later one (a later write to the same key may have committed too).
        expect(Number(r.headers.get('x-orrery-state-version'))).toBeGreaterThanOrEqual(version);
        await r.arrayBuffer();
      }
      await second.stop();
    });
  });
});
