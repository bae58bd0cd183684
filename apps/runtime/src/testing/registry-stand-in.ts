import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RegistryCall { path: string; authorization?: string; body: Record<string, unknown> }

/**
 * Stands in for orrery-registry (the StellMap public API): records register / heartbeat /
 * deregister calls and answers with the StellMap envelope; can be told to fail.
 */
export class RegistryStandIn {
  calls: RegistryCall[] = [];
  failRegisters = 0;
  notFoundHeartbeats = 0;
  server!: Server;
  url!: string;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        const path = req.url!;
        const body = JSON.parse(text || '{}') as Record<string, unknown>;
        this.calls.push({ path, authorization: req.headers.authorization, body });
        const reply = (status: number, code: string, message = '') =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ code, message, data: {}, requestId: String(this.calls.length) }));
        if (path === '/api/v1/registry/register' && this.failRegisters > 0) {
          this.failRegisters--;
          return reply(503, 'not_leader', 'not leader');
        }
        if (path === '/api/v1/registry/heartbeat' && this.notFoundHeartbeats > 0) {
          this.notFoundHeartbeats--;
          return reply(404, 'not_found', 'instance not found');
        }
        reply(200, 'ok');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    // A worker still running keeps its keep-alive connection open.
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  paths(): string[] {
    return this.calls.map((c) => c.path.replace('/api/v1/registry/', ''));
  }
}

/** A loopback port with nothing listening (bound then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

