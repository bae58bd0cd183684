import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { LocalMembers } from './local-registry-members.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

it('hasData is true only once etcd wrote a WAL file, not for the member folder etcd makes before it joins', async () => {
  const clusterDir = mkdtempSync(join(tmpdir(), 'orrery-members-'));
  dirs.push(clusterDir);
  const members = new LocalMembers({ clusterDir, token: 't', etcdBin: '/nonexistent', heartbeatMs: 100, electionMs: 1000, log: () => {} });
  const m = await members.create('reg-2', 2);
  expect(members.hasData('reg-2')).toBe(false);
  // What a first start that died while fetching the cluster leaves behind.
  mkdirSync(join(m.dataDir, 'member', 'snap'), { recursive: true });
  expect(members.hasData('reg-2')).toBe(false);
  mkdirSync(join(m.dataDir, 'member', 'wal'), { recursive: true });
  writeFileSync(join(m.dataDir, 'member', 'wal', '0.tmp'), '');
  expect(members.hasData('reg-2')).toBe(false);
  writeFileSync(join(m.dataDir, 'member', 'wal', '0000000000000000-0000000000000000.wal'), '');
  expect(members.hasData('reg-2')).toBe(true);
  expect(members.hasData('no-such-member')).toBe(false);
});
