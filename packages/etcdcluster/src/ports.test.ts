import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, freePorts } from './ports.ts';

describe('freePort', () => {
  it('picks below the kernel’s ephemeral range, and the port can be bound', async () => {
    const [low] = (await import('node:fs')).readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(low!);
      await new Promise<void>((resolve, reject) => {
        const s = createServer().once('error', reject);
        s.listen(port, '127.0.0.1', () => s.close(() => resolve()));
      });
    }
  });
  it('gives distinct ports', async () => {
    const ports = await freePorts(8);
    expect(new Set(ports).size).toBe(8);
  });
  it('never gives a port already handed out (free again until its member binds it), and records what it gives', async () => {
    const taken = new Set<number>();
    const first = await freePorts(2, '127.0.0.1', taken);
    expect([...taken].sort()).toEqual([...first].sort());
    // Hand out many more in turn, none bound: each call must avoid every earlier one.
    for (let i = 0; i < 40; i++) {
      const next = await freePorts(2, '127.0.0.1', taken);
      expect(next.length).toBe(2);
    }
    expect(taken.size).toBe(82);
  });
});
