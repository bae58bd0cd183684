import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyRefused, REFUSED_BODY_LINGER_MS, refuseRestOfBody } from './refuse-rest-of-body.ts';
import { sendJson } from './send-json.ts';

let server: Server;
let url = '';
const sawRefused: boolean[] = [];

beforeAll(async () => {
  // Refuses every body after its first chunk, while the client is still sending the rest.
  server = createServer((req, res) => {
    req.once('data', () => {
      refuseRestOfBody(req, res);
      sawRefused.push(bodyRefused(req));
      sendJson(res, 413, { code: 'payload_too_large' });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

/** A body sent in `n` chunks a little apart, so some are written after the refusal. */
const chunks = (n: number) => {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      if (sent++ === n) return c.close();
      if (sent > 1) await new Promise((ok) => setTimeout(ok, 1));
      c.enqueue(new Uint8Array(1000).fill(122));
    },
  });
};

describe('refuseRestOfBody', () => {
  it('the client reads the refusal although it is still sending (no RST overtakes the answer), and the connection closes', { timeout: 60_000 }, async () => {
    const answers: string[] = [];
    for (let i = 0; i < 30; i++) {
      const declared = await fetch(`${url}/`, { method: 'POST', body: 'z'.repeat(1024 * 1024) });
      const streamed = await fetch(`${url}/`, { method: 'POST', body: chunks(16), duplex: 'half' } as RequestInit);
      for (const res of [declared, streamed]) answers.push(`${res.status} ${res.headers.get('connection')} ${((await res.json()) as { code: string }).code}`);
    }
    expect(answers).toEqual(Array(60).fill('413 close payload_too_large'));
    expect(sawRefused).toHaveLength(60);
    expect(sawRefused.every(Boolean)).toBe(true);
  });

  it('half-closes at once and resets only after the linger, while a client that keeps sending gets no error', { timeout: 10_000 }, async () => {
    const { port } = new URL(url);
    const client = connect({ host: '127.0.0.1', port: Number(port), allowHalfOpen: true });
    await new Promise<void>((ok) => client.once('connect', () => ok()));
    const started = performance.now();
    client.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 10000000\r\n\r\n${'z'.repeat(2000)}`);
    let answer = '';
    client.on('data', (d: Buffer) => (answer += d.toString()));
    const finAt = new Promise<number>((ok) => client.once('end', () => ok(performance.now() - started)));
    const goneAt = new Promise<number>((ok) => client.once('close', () => ok(performance.now() - started)));
    client.on('error', () => {});
    // The client keeps uploading after the answer, as a slow uploader would.
    const writer = setInterval(() => client.writable && client.write('z'.repeat(1000)), 10);
    try {
      expect(await finAt).toBeLessThan(REFUSED_BODY_LINGER_MS / 2);
      expect(answer).toMatch(/^HTTP\/1\.1 413 [^]*connection: close[^]*payload_too_large/i);
      expect(await goneAt).toBeGreaterThanOrEqual(REFUSED_BODY_LINGER_MS - 50);
    } finally {
      clearInterval(writer);
      client.destroy();
    }
  });
});
