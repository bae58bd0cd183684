import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FORWARDED_HEADER, createLeaderForwarding } from './leader-forwarding.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** A follower whose forwarding reads leader state from `state`. */
async function follower(state: { leaderUrl?: string; local?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean> }) {
  const forward = createLeaderForwarding({ identity: 'follower-1', local: () => state.local, leaderUrl: () => state.leaderUrl, timeoutMs: 2_000 });
  return serve((req, res) => void forward(req, res));
}

const post = (url: string, body: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

describe('leader forwarding (control endpoints on the Lease holder)', () => {
  it('serves locally while leading; unknown paths are 404', async () => {
    const url = await follower({
      local: async (req, res) => {
        if (req.url !== '/v1/autoscaler/stats') return false;
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"ok":true,"where":"local"}');
        return true;
      },
    });
    expect(await (await post(`${url}/v1/autoscaler/stats`, '{}')).json()).toEqual({ ok: true, where: 'local' });
    const missing = await post(`${url}/v1/autoscaler/nope`, '{}');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
  });

  it('streams the call to the leader with its body and token, and the answer back', async () => {
    const seen: Array<{ url?: string; auth?: string; by?: string; body: string }> = [];
    const leader = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ url: req.url, auth: req.headers.authorization, by: req.headers[FORWARDED_HEADER] as string, body });
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"ok":true,"where":"leader"}');
      });
    });
    const url = await follower({ leaderUrl: leader });
    const res = await post(`${url}/v1/autoscaler/poke?x=1`, '{"namespace":"a"}', { authorization: 'Bearer t0k' });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ ok: true, where: 'leader' });
    expect(seen).toEqual([{ url: '/v1/autoscaler/poke?x=1', auth: 'Bearer t0k', by: 'follower-1', body: '{"namespace":"a"}' }]);
  });

  it('answers 503 not_leader when nobody leads, and never forwards a forwarded call again', async () => {
    let reached = 0;
    const other = await serve((_req, res) => {
      reached++;
      res.end();
    });
    const none = await follower({});
    const a = await post(`${none}/v1/autoscaler/stats`, '{}');
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBe('1');
    expect(await a.json()).toMatchObject({ code: 'not_leader' });
    // The Lease moved while the call was in flight: the stale target does not bounce it on.
    const stale = await follower({ leaderUrl: other });
    const b = await post(`${stale}/v1/autoscaler/stats`, '{}', { [FORWARDED_HEADER]: 'follower-0' });
    expect(b.status).toBe(503);
    expect(reached).toBe(0);
  });

  it('answers 502 leader_unreachable when the leader does not answer', async () => {
    const gone = await serve(() => {});
    const addr = gone;
    await new Promise((r) => servers.pop()!.close(r));
    const url = await follower({ leaderUrl: addr });
    const res = await post(`${url}/v1/autoscaler/stats`, '{}');
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ code: 'leader_unreachable' });
  });
});
