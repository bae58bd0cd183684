/**
 * close({ drainMs }): a client that keeps its connection alive gets its answers during the drain,
 * each saying Connection: close, and the server is gone after it. Without the drain, an idle
 * kept-alive connection is closed at once (the race a worker lost during `helm upgrade`).
 */
import { request, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MemoryDriver } from '@orrery/statestore';
import { parseKeyspaces } from './keyspaces.ts';
import { startStateServer } from './server.ts';

const start = () => startStateServer({ driver: new MemoryDriver(), keyspaces: () => parseKeyspaces('- {namespace: default, keyspace: cart}'), masterKeys: [Buffer.alloc(32, 7)], passThrough: false, log: () => {} });

function get(url: string, agent: Agent): Promise<{ status: number; connection: string | undefined; socketReused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, socketReused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('statesvc shutdown drain', () => {
  it('serves kept-alive clients through the drain, telling them to reconnect, then stops', async () => {
    const srv = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await get(srv.url, agent)).connection).toBe('keep-alive');
      const t0 = Date.now();
      const closed = srv.close({ drainMs: 600 });
      // The kept-alive socket is still served, and told to close after this answer.
      const during = await get(srv.url, agent);
      expect(during).toEqual({ status: 200, connection: 'close', socketReused: true });
      // A new connection during the drain is served too (kube-proxy may still send one).
      expect((await get(srv.url, agent)).status).toBe(200);
      await closed;
      expect(Date.now() - t0).toBeGreaterThanOrEqual(590);
      await expect(get(srv.url, agent)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      agent.destroy();
    }
  });

  it('without a drain, stops at once', async () => {
    const srv = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await get(srv.url, agent);
      const t0 = Date.now();
      await srv.close();
      expect(Date.now() - t0).toBeLessThan(500);
      await expect(get(srv.url, agent)).rejects.toThrow(/ECONNREFUSED|socket hang up|ECONNRESET/);
    } finally {
      agent.destroy();
    }
  });
});
