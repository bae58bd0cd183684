/**
 * The router's whole output is structured (docs/operations.md "Logs"): started as its real
 * binary at debug level with canary secrets in the two places it receives them (the store token
 * file and ORRERY_REGISTRY_TOKEN), driven through a request that fails (no such function), one
 * that waits on a revision whose autoscaler and registry both answer 500 with the token echoed
 * back, and a stop. Every line is a JSON record of the router, and no canary shows anywhere.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { logLineProblems, logRecords, startLoggingProcess, type LoggingProcess } from '@orrery/log/testing';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, functionYaml } from './testing/processes.ts';

const ROUTER_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'orrery-router.mjs');
const STORE_TOKEN = 'canary-store-token-7f3e1b';
const REGISTRY_TOKEN = 'canary-registry-token-19ac';

const dir = mkdtempSync(join(tmpdir(), 'orrery-router-logs-'));
// Stands in for the operator (autoscaler) and the registry: refuses everything, echoing the
// Authorization it got, as a buggy peer could; the router must not copy that into its log.
const seen: string[] = [];
let peer: Server;
let router: LoggingProcess;

beforeAll(async () => {
  peer = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    // The bare token, not "Bearer …": only the registered secret can catch it.
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `refused credential ${token}!` }));
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  writeFileSync(join(dir, 'store.token'), `${STORE_TOKEN}\n`);
  writeFileSync(join(dir, 'routes.yaml'), functionYaml({ name: 'hello', namespace: 'team', revisions: ['hello-00001'], timeoutSeconds: 2 }));
  router = await startLoggingProcess(
    ROUTER_BIN,
    ['--port', '0', '--admin-port', '0', '--routes-file', join(dir, 'routes.yaml'), '--store-token-file', join(dir, 'store.token'),
      '--autoscaler-url', peerUrl, '--registry-url', peerUrl, '--registry-namespace', 'team'],
    { ORRERY_LOG_LEVEL: 'debug', ORRERY_REGISTRY_TOKEN: REGISTRY_TOKEN },
  );
}, 60_000);

afterAll(async () => {
  await router?.stop();
  await new Promise((r) => peer?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('router logs', () => {
  it('are JSON records of the router with no secret in them, through failures and a stop', { timeout: 60_000 }, async () => {
    const missing = await request(`${router.url}/team/nope/x`);
    expect(missing.statusCode).toBe(404);
    await missing.body.dump();
    const waited = await request(`${router.url}/team/hello/x`, { headers: { authorization: `Bearer ${STORE_TOKEN}` } });
    expect(waited.statusCode).toBeGreaterThanOrEqual(500);
    await waited.body.dump();
    // The canaries really were in play: the peer received both, and answered with them.
    await eventually(() => (seen.some((s) => s.includes(REGISTRY_TOKEN)) && seen.some((s) => s.includes(STORE_TOKEN)) ? true : undefined), 'the peer saw both tokens');
    await eventually(() => (/registry watch:/.test(router.stderr()) && /autoscaler poke failed/.test(router.stderr()) ? true : undefined), 'the router logged both failures');
    expect(await router.stop()).toBe(0);

    const out = { stdout: router.stdout(), stderr: router.stderr() };
    expect(logLineProblems(out, 'router')).toEqual([]);
    expect(out.stdout + out.stderr).not.toContain(STORE_TOKEN);
    expect(out.stdout + out.stderr).not.toContain(REGISTRY_TOKEN);
    const records = logRecords(out.stderr);
    expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^routes loaded: 1 functions/), 'SIGTERM: draining']));
    expect(records.filter((r) => r.level === 'warn').map((r) => r.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^autoscaler poke failed/)]));
  });
});
