import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import { RegistryWatch } from './registry-watch.ts';

const worker = (id: string, fn: string, rev: string, port: number) => ({
  namespace: 'team',
  service: `orrery.functions.team.${fn}.${rev}`,
  instanceId: id,
  labels: { 'orrery.dev/function': fn, 'orrery.dev/revision': rev },
  endpoints: [
    { name: 'metrics', protocol: 'http', host: '127.0.0.1', port: 9 },
    { name: 'http', protocol: 'http', host: '127.0.0.1', port },
  ],
});

function sse(res: ServerResponse, event: string, data: unknown, id?: number): void {
  res.write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function until<T>(f: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Listens with `server` and watches namespace `team` through it (fast reconnects); both stop after the test. */
async function watching(server: Server): Promise<{ watch: RegistryWatch; reports: EndpointRecord[][] }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const reports: EndpointRecord[][] = [];
  const watch = new RegistryWatch({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, namespaces: ['team'], onRecords: (r) => reports.push(r), minBackoffMs: 10, maxBackoffMs: 20 });
  cleanups.push(async () => {
    await watch.stop();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { watch, reports };
}

describe('RegistryWatch (against a local SSE server speaking the StellMap watch contract)', () => {
  it('applies snapshot/upsert/delete, resumes with sinceRevision and resyncs after 410', { timeout: 20_000 }, async () => {
    const queries: URLSearchParams[] = [];
    const server = createServer((req, res) => {
      const u = new URL(req.url!, 'http://x');
      expect(u.pathname).toBe('/api/v1/registry/watch');
      queries.push(u.searchParams);
      const n = queries.length;
      if (n === 3) {
        res.writeHead(410, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 'revision_expired', message: 'sinceRevision is compacted' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (n === 1) {
        sse(res, 'snapshot', { revision: 5, instances: [worker('w1', 'hello', 'hello-00001', 1001), { namespace: 'team', service: 'other.app.x.y.z', instanceId: 'o', endpoints: [] }] });
        sse(res, 'upsert', { revision: 6, instance: worker('w2', 'hello', 'hello-00002', 1002) });
        setTimeout(() => res.destroy(), 50);
      } else if (n === 2) {
        sse(res, 'delete', { revision: 7, instance: worker('w1', 'hello', 'hello-00001', 1001) });
        setTimeout(() => res.destroy(), 50);
      } else {
        sse(res, 'snapshot', { revision: 20, instances: [worker('w3', 'hello', 'hello-00003', 1003)] });
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const reports: EndpointRecord[][] = [];
    const watch = new RegistryWatch({ url, namespaces: ['team'], onRecords: (r) => reports.push(r), minBackoffMs: 10, maxBackoffMs: 50 });
    cleanups.push(async () => {
      await watch.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    const addrs = (r: EndpointRecord[]) => r.map((e) => `${e.revision}@${e.address}`).sort();
    await until(() => reports.find((r) => r.length === 2), 'snapshot + upsert');
    expect(addrs(reports.find((r) => r.length === 2)!)).toEqual(['hello-00001@127.0.0.1:1001', 'hello-00002@127.0.0.1:1002']);
    await until(() => (queries.length >= 4 && reports.at(-1)?.[0]?.revision === 'hello-00003' ? true : undefined), 'resync after 410');
    // After the delete only w2 remained; the 410 resync replaced everything with the new snapshot.
    expect(reports.some((r) => addrs(r).join() === 'hello-00002@127.0.0.1:1002')).toBe(true);
    expect(addrs(reports.at(-1)!)).toEqual(['hello-00003@127.0.0.1:1003']);
    expect(queries[0]!.get('namespace')).toBe('team');
    expect(queries[0]!.get('servicePrefix')).toBe('orrery.functions');
    expect(queries[0]!.get('sinceRevision')).toBeNull();
    expect(queries[1]!.get('sinceRevision')).toBe('6');
    expect(queries[2]!.get('sinceRevision')).toBe('7');
    expect(queries[3]!.get('sinceRevision')).toBeNull();
    expect(watch.status()[0]).toMatchObject({ namespace: 'team', revision: 20, resyncs: 1 });
  });

  it('resumes from the SSE id, which stands before a revision while more changes of it follow', { timeout: 20_000 }, async () => {
    const queries: URLSearchParams[] = [];
    const server = createServer((req, res) => {
      queries.push(new URL(req.url!, 'http://x').searchParams);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (queries.length === 1) {
        sse(res, 'snapshot', { revision: 5, instances: [] }, 5);
        // Two registrations committed in one txn (revision 8); the stream is cut between them.
        sse(res, 'upsert', { revision: 8, instance: worker('w1', 'hello', 'hello-00001', 1001) }, 7);
        setTimeout(() => res.destroy(), 50);
      } else {
        sse(res, 'upsert', { revision: 8, instance: worker('w1', 'hello', 'hello-00001', 1001) }, 7);
        sse(res, 'upsert', { revision: 8, instance: worker('w2', 'hello', 'hello-00001', 1002) }, 8);
      }
    });
    const { watch, reports } = await watching(server);
    await until(() => (reports.at(-1)?.length === 2 ? true : undefined), 'both workers after the resume');
    expect(queries[1]!.get('sinceRevision')).toBe('7');
    expect(watch.status()[0]!.revision).toBe(8);
  });

  it('keeps the last snapshot while the registry is unreachable', { timeout: 20_000 }, async () => {
    let up = true;
    const server = createServer((_req, res) => {
      if (!up) {
        res.writeHead(503);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, 'snapshot', { revision: 1, instances: [worker('w1', 'hello', 'hello-00001', 1001)] });
      setTimeout(() => {
        up = false;
        res.destroy();
      }, 30);
    });
    const { watch, reports } = await watching(server);
    await until(() => (watch.status()[0]!.reconnects >= 3 ? true : undefined), 'reconnect attempts');
    expect(reports.at(-1)!.map((e) => e.address)).toEqual(['127.0.0.1:1001']);
  });
});
