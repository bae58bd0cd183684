import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../commands/registry.ts';

// A stand-in admin API on loopback: records what the CLI sends, answers in the registry's envelope.
const seen: Array<{ method: string; url: string; auth: string; body: string }> = [];
let server: Server;
let url: string;

const goodStatus = {
  clusterId: 'c1',
  leader: { id: 'a1', name: 'm1' },
  members: [{ id: 'a1', name: 'm1', peerURLs: ['http://x:1'], clientURLs: ['http://x:0'], isLearner: false, isLeader: true, reachable: true, raftTerm: 2, errors: [] }],
};
let statusData: unknown = goodStatus;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization ?? '', body });
      const send = (code: string, data: unknown, status = 200, message = '') => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code, message, data, requestId: 'r' }));
      };
      if (req.url === '/admin/v1/status') return send('ok', statusData);
      if (req.url === '/admin/v1/members/add-learner') {
        return send('ok', { member: { id: 'b2', name: 'm4', peerURLs: ['http://y:2'], isLearner: true }, initialCluster: 'm1=http://x:1,m4=http://y:2', initialClusterState: 'existing' });
      }
      if (req.url === '/admin/v1/members/remove') return send('ok', { removed: 'b2' }); // missing the member list
      if (req.url === '/admin/v1/members/promote') return send('conf_change_failed', {}, 409, 'promote b2: the learner has not caught up');
      return send('ok', { from: 'a1', leader: 'b2', changed: true });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function capture(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    const code = await run(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('orrery registry', () => {
  it('prints the status table with the bearer token', async () => {
    const r = await capture(['status', '--admin-url', url, '--token', 't0k']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('cluster c1  leader m1 (a1)');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/admin/v1/status', auth: 'Bearer t0k' });
  });

  it('refuses a status answer that does not match the shared contract (exit 1, bad_response)', async () => {
    statusData = { clusterId: 'c1', leader: null, members: [{ id: 'a1', name: 'm1' }] };
    try {
      const r = await capture(['status', '--admin-url', url, '--token', 't0k']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('bad_response');
      expect(r.err).toContain('/admin/v1/status');
    } finally {
      statusData = goodStatus;
    }
  });

  it('sends add-learner and explains how to start the member', async () => {
    const r = await capture(['member', 'add-learner', 'm4', 'http://y:2', '--admin-url', url, '--token', 't']);
    expect(r.code).toBe(0);
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ name: 'm4', peerURL: 'http://y:2' });
    expect(r.out).toContain('--initial-cluster m1=http://x:1,m4=http://y:2 --initial-cluster-state existing');
  });

  it('exits 1 with the API message when etcd refuses, 2 on usage errors', async () => {
    const r = await capture(['member', 'promote', 'b2', '--admin-url', url, '--token', 't']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('conf_change_failed: promote b2: the learner has not caught up');
    expect((await capture(['member', 'promote', '--admin-url', url, '--token', 't'])).code).toBe(2);
    vi.stubEnv('ORRERY_REGISTRY_ADMIN_TOKEN', '');
    try {
      expect((await capture(['status', '--admin-url', url])).code).toBe(2);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses a membership answer that does not match the contract (exit 1, bad_response naming the field)', async () => {
    const r = await capture(['member', 'remove', 'b2', '--admin-url', url, '--token', 't']);
    expect(r.code).toBe(1);
    expect(r.err).toContain("bad_response: the registry's /admin/v1/members/remove answer does not match this CLI's contract");
    expect(r.err).toContain('members:');
  });

  it('transfers leadership', async () => {
    const r = await capture(['leader', 'transfer', 'b2', '--admin-url', url, '--token', 't']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('leadership moved from a1 to b2');
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ targetId: 'b2' });
  });
});
