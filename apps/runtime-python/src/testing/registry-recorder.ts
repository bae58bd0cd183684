/**
 * Stands in for orrery-registry's public API in the pool-mode test: records register / heartbeat /
 * deregister calls with their Authorization and answers with the StellMap envelope. (The real
 * registry on etcd is in real-registry.int.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RegistryCall {
  path: string;
  authorization?: string;
  body: Record<string, unknown>;
}

export class RegistryRecorder {
  calls: RegistryCall[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += d.toString()));
      req.on('end', () => {
        this.calls.push({ path: req.url!.replace('/api/v1/registry/', ''), authorization: req.headers.authorization, body: JSON.parse(text || '{}') as Record<string, unknown> });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'ok', message: '', data: {}, requestId: String(this.calls.length) }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
