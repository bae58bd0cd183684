import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIsolationMode, WorkerIsolation } from './worker-isolation.ts';

const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'orrery-iso-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const asRoot = process.getuid?.() === 0;

describe('WorkerIsolation', () => {
  it('off (or not root): work dirs under the data dir, no uid', () => {
    const dataDir = fresh();
    for (const iso of [WorkerIsolation.create({ dataDir, mode: 'off', isRoot: true }), WorkerIsolation.create({ dataDir, mode: 'auto', isRoot: false })]) {
      expect(iso.enabled).toBe(false);
      expect(iso.workDir('workers', 'default', 'f-1')).toBe(join(dataDir, 'workers', 'default', 'f-1'));
      expect(iso.forFunction('default', 'f')).toEqual({});
      expect(iso.forPoolWorker()).toEqual({});
    }
  });

  it('on without root is refused; modes parse', () => {
    expect(() => WorkerIsolation.create({ dataDir: fresh(), mode: 'on', isRoot: false })).toThrow(/needs the operator to run as root/);
    expect(parseIsolationMode(undefined)).toBe('auto');
    expect(() => parseIsolationMode('yes')).toThrow(/auto, on or off/);
  });

  it.skipIf(!asRoot)('as root: a private workers folder, the data dir 0700, work dirs 0700 owned by the worker, uids kept in a table', async () => {
    const dataDir = fresh();
    const iso = WorkerIsolation.create({ dataDir, mode: 'auto', uidRange: { first: 250_000, last: 250_099 } });
    try {
      expect(iso.enabled).toBe(true);
      expect(iso.workersRoot.startsWith(join(tmpdir(), 'orrery-workers-'))).toBe(true);
      expect(statSync(iso.workersRoot).mode & 0o777).toBe(0o711);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const who = iso.forFunction('default', 'counter');
      expect(who.uid).toBeGreaterThanOrEqual(250_000);
      const dir = iso.workDir('workers', 'default', 'counter-00001-1');
      iso.prepareWorkDir(dir, who);
      const st = statSync(dir);
      expect([st.mode & 0o777, st.uid, st.gid]).toEqual([0o700, who.uid, who.uid]);
      expect(statSync(join(iso.workersRoot, 'workers', 'default')).mode & 0o777).toBe(0o711);
      expect(JSON.parse(readFileSync(join(dataDir, 'worker-uids.json'), 'utf8'))).toEqual({ 'default/counter': who.uid });
      expect(statSync(join(dataDir, 'worker-uids.json')).mode & 0o777).toBe(0o600);
      // A restarted operator gives the function the same uid; pool workers get others, released after.
      const again = WorkerIsolation.create({ dataDir, mode: 'auto', uidRange: { first: 250_000, last: 250_099 } });
      expect(again.forFunction('default', 'counter').uid).toBe(who.uid);
      const p1 = again.forPoolWorker();
      const p2 = again.forPoolWorker();
      expect(new Set([who.uid, p1.uid, p2.uid]).size).toBe(3);
      p1.release!();
      again.close();
      await iso.removeWorkDir(dir);
      expect(existsSync(dir)).toBe(false);
    } finally {
      iso.close();
    }
    expect(existsSync(iso.workersRoot)).toBe(false);
  });
});
