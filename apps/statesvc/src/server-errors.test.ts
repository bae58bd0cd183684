/** 503 and 500 paths, which a healthy real driver cannot produce on demand. */
import { afterEach, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { checkRouteAnswer, STATE_GENERIC_ERROR_MESSAGE, STATESVC_HTTP_API } from '@orrery/spec';
import { MemoryDriver, StateStoreError } from '@orrery/statestore';
import { parseKeyspaces } from './keyspaces.ts';
import { startStateServer, type RunningStateServer } from './server.ts';

const MASTER = Buffer.alloc(32, 9);
const keyspaces = parseKeyspaces('- {namespace: default, keyspace: cart}');
const headers = { authorization: `Bearer ${deriveStateToken(MASTER, 'default', 'cart')}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' };

class UnavailableDriver extends MemoryDriver {
  override async get(): Promise<never> {
    throw new StateStoreError('capability_unavailable', 'state database unavailable: connection refused');
  }
  override async ping(): Promise<void> {
    throw new Error('connection refused');
  }
  override async list(): Promise<never> {
    throw new TypeError('a bug');
  }
}

describe('statesvc error paths', () => {
  let srv: RunningStateServer | undefined;
  afterEach(async () => {
    await srv?.close();
  });

  it('driver down → 503 capability_unavailable (readyz too); a bug → 500 internal without details', async () => {
    const logs: string[] = [];
    srv = await startStateServer({ driver: new UnavailableDriver(), keyspaces: () => keyspaces, masterKeys: [MASTER], passThrough: false, log: (m) => logs.push(m) });
    const get = await fetch(`${srv.url}/v1/state/a`, { headers });
    expect(get.status).toBe(503);
    const getBody = await get.json();
    expect(getBody).toMatchObject({ code: 'capability_unavailable' });
    expect(checkRouteAnswer(STATESVC_HTTP_API, 'GET', '/v1/state/a', get.status, getBody)).toBe('GET /v1/state/{key} capability_unavailable');
    const ready = await fetch(`${srv.url}/readyz`);
    expect(ready.status).toBe(503);
    const readyBody = await ready.json();
    expect(readyBody).toMatchObject({ code: 'capability_unavailable' });
    expect(checkRouteAnswer(STATESVC_HTTP_API, 'GET', '/readyz', ready.status, readyBody)).toBe('GET /readyz capability_unavailable');
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    const list = await fetch(`${srv.url}/v1/state`, { headers });
    expect(list.status).toBe(500);
    const body = await list.json();
    expect(body).toEqual({ error: 'internal error; see the statesvc log', code: 'internal' });
    expect(checkRouteAnswer(STATESVC_HTTP_API, 'GET', '/v1/state', list.status, body)).toBe('GET /v1/state internal');
    expect(logs.join('\n')).toMatch(/a bug/);
    expect(logs.join('\n')).not.toContain(headers.authorization.slice(7));
  });

  it('driver and database text never reaches a response, only the log (redacted)', async () => {
    const sqlText = 'Failed query: select key from state_entries where key > $4\nparams: default,cart,17,\u0000,101';
    class LeakyDriver extends MemoryDriver {
      override async get(): Promise<never> {
        // What a driver did before issue 20 item 9: the database's words in the message.
        throw new StateStoreError('capability_unavailable', `state database unavailable: ${sqlText}`);
      }
      override async setCounted(): Promise<never> {
        throw new StateStoreError('internal', 'memory state journal /var/lib/orrery/memory-state.journal: write failed (ENOSPC)');
      }
      override async delete(): Promise<never> {
        throw Object.assign(new Error('connect ECONNREFUSED postgres://orrery:hunter2@db:5432/state'), { code: 'ECONNREFUSED' });
      }
      override async ping(): Promise<void> {
        throw new Error(`PGlite: ${sqlText}`);
      }
    }
    const logs: string[] = [];
    srv = await startStateServer({ driver: new LeakyDriver(), keyspaces: () => keyspaces, masterKeys: [MASTER], passThrough: false, log: (m) => logs.push(m) });
    const answers = [
      await fetch(`${srv.url}/v1/state/a`, { headers }),
      await fetch(`${srv.url}/v1/state/a`, { method: 'PUT', headers, body: '1' }),
      await fetch(`${srv.url}/v1/state/a`, { method: 'DELETE', headers }),
      await fetch(`${srv.url}/readyz`),
    ];
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, headers: JSON.stringify([...r.headers]), body: await r.text() })));
    expect(bodies.map((b) => b.status)).toEqual([503, 500, 500, 503]);
    for (const b of bodies) {
      const json = JSON.parse(b.body) as { error: string; code: string };
      expect(json.error).toBe(STATE_GENERIC_ERROR_MESSAGE[json.code as keyof typeof STATE_GENERIC_ERROR_MESSAGE]);
      expect(b.body + b.headers).not.toMatch(/select|params|state_entries|journal|ENOSPC|ECONNREFUSED|hunter2|PGlite/);
    }
    const log = logs.join('\n');
    expect(log).toContain('state_entries');
    expect(log).toContain('ENOSPC');
    expect(log).toContain('ECONNREFUSED');
    expect(log).not.toContain('hunter2');
    expect(log).not.toMatch(/\u0000/);
    expect(log).toContain('params: [redacted]');
  });

  it('the global body cap wins over a larger keyspace limit', async () => {
    srv = await startStateServer({ driver: new MemoryDriver(), keyspaces: () => keyspaces, masterKeys: [MASTER], passThrough: false, maxBodyBytes: 10 });
    const r = await fetch(`${srv.url}/v1/state/a`, { method: 'PUT', headers, body: '"0123456789"' });
    expect(r.status).toBe(413);
    expect((await r.json()).code).toBe('quota_value_bytes');
  });
});
