/**
 * The worker's whole output is structured (docs/operations.md "Logs"): the real process at debug
 * level in deploy mode, with canary secrets where it receives them (ORRERY_STATE_TOKEN,
 * ORRERY_REGISTRY_CREDENTIAL), a statesvc and a registry that both answer 500 with the token they
 * got echoed back, a request that succeeds, one whose handler fails with the state error, and a
 * stop. Every line is a JSON record of component "runtime" (the function's ctx.log records
 * included) but the `listening` handshake, and no canary shows anywhere.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logLineProblems, logRecords } from '@orrery/log/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopRuntime, type RuntimeProcess } from './runtime-process.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';

const STATE_TOKEN = 'canary-state-token-3e8b';
const REGISTRY_CREDENTIAL = 'c0ffee42'.repeat(8);

export function structuredLogsContract(runtime: RuntimeUnderTest): void {
  describe(`${runtime.name} logs`, () => {
    const seen: string[] = [];
    let peer: Server;
    let worker: RuntimeProcess;

    beforeAll(async () => {
      // Stands in for statesvc and the registry: refuses everything, echoing the bare token.
      peer = createServer((req, res) => {
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        seen.push(token);
        req.resume();
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `refused credential ${token}!`, code: 'internal' }));
      });
      await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
      const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
      worker = await runtime.start(
        ['--namespace', 'shop', '--function', 'logs', '--revision', 'logs-00001', '--source-inline', runtime.sources.logging,
          '--state-url', peerUrl, '--state-keyspace', 'counts', '--registry-url', peerUrl, '--drain-timeout-seconds', '2'],
        { ORRERY_LOG_LEVEL: 'debug', ORRERY_STATE_TOKEN: STATE_TOKEN, ORRERY_REGISTRY_CREDENTIAL: REGISTRY_CREDENTIAL },
      );
    }, 60_000);

    afterAll(async () => {
      await stopRuntime(worker);
      await new Promise((r) => peer?.close(r));
    });

    it('are JSON records of the runtime with no secret in them, through a handler failure, a registry outage and a stop', { timeout: 60_000 }, async () => {
      const good = await fetch(`${worker.url}/ok`);
      expect([good.status, await good.text()]).toEqual([200, 'ok']);
      const bad = await fetch(`${worker.url}/fail`);
      expect(bad.status).toBe(500);
      await bad.text();
      // The canaries really were in play: the stand-in received both and sent them back.
      const until = Date.now() + 15_000;
      while (!(seen.includes(STATE_TOKEN) && seen.includes(REGISTRY_CREDENTIAL) && /registry \w+ failed/.test(worker.stderr())) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual(expect.arrayContaining([STATE_TOKEN, REGISTRY_CREDENTIAL]));
      await stopRuntime(worker);
      expect(await worker.exited).toBe(0);

      const out = { stdout: worker.stdout(), stderr: worker.stderr() };
      expect(logLineProblems(out, 'runtime')).toEqual([]);
      expect(out.stdout + out.stderr).not.toContain(STATE_TOKEN);
      expect(out.stdout + out.stderr).not.toContain(REGISTRY_CREDENTIAL);
      const records = logRecords(out.stderr);
      // The function's own records: tagged with where they came from, for `orrery logs`.
      expect(records).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'info', source: 'function', function: 'logs', revision: 'logs-00001', msg: 'handling', path: '/ok' })]));
      expect(records).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'error', msg: 'handler threw' })]));
      expect(records.some((r) => r.level === 'warn' && /^registry \w+ failed/.test(String(r.msg)))).toBe(true);
      expect(records.map((r) => r.msg)).toContain('drained; exiting');
    });
  });
}
