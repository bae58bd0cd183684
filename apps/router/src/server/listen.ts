/** Starts a node server listening and resolves with the bound address (a port of 0 is known only then). */
import type { AddressInfo, Server } from 'node:net';

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
