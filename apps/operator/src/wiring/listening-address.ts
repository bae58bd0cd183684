/** Where a listening server can be reached: its bound address and port, and the host as a URL writes it (IPv6 in brackets). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function listeningAddress(server: Server): { address: string; port: number; host: string; url: string } {
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return { address, port, host, url: `http://${host}:${port}` };
}
