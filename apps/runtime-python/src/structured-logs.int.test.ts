/**
 * The Python worker's whole output is structured like every Orrery component's (docs/operations.md
 * "Logs"; apps/runtime/src/structured-logs.int.test.ts): at debug level in deploy mode, with canary
 * secrets where it receives them, a statesvc and a registry that answer 500 echoing the token they
 * got, a request that succeeds, one whose handler raises with the state error, and a stop. Every
 * line is a JSON record of component "runtime" (the function's ctx.log records included) but the
 * `listening` handshake, and no canary shows anywhere.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logLineProblems, logRecords } from '@orrery/log/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPythonRuntime, stopPythonRuntime, type PythonRuntimeProcess } from './testing/python-runtime-process.ts';

const STATE_TOKEN = 'canary-state-token-7d1c';
const REGISTRY_CREDENTIAL = 'c0ffee43'.repeat(8);
const SOURCE = `def handler(request, ctx):
    ctx.log.info("handling", path=request.path)
    if request.path == "/fail":
        ctx.state.get("k")
    return "ok"
`;

const seen: string[] = [];
let peer: Server;
let worker: PythonRuntimeProcess;

beforeAll(async () => {
  peer = createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    seen.push(token);
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `refused credential ${token}!`, code: 'internal' }));
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  worker = await startPythonRuntime(
    ['--namespace', 'shop', '--function', 'logs', '--revision', 'logs-00001', '--source-inline', SOURCE,
      '--state-url', peerUrl, '--state-keyspace', 'counts', '--registry-url', peerUrl, '--drain-timeout-seconds', '2'],
    { ORRERY_LOG_LEVEL: 'debug', ORRERY_STATE_TOKEN: STATE_TOKEN, ORRERY_REGISTRY_CREDENTIAL: REGISTRY_CREDENTIAL },
  );
}, 30_000);

afterAll(async () => {
  await stopPythonRuntime(worker);
  await new Promise((r) => peer?.close(r));
});

describe('Python runtime logs', () => {
  it('are JSON records of the runtime with no secret in them, through a handler failure, a registry outage and a stop', { timeout: 30_000 }, async () => {
    const good = await fetch(`${worker.url}/ok`);
    expect([good.status, await good.text()]).toEqual([200, 'ok']);
    const bad = await fetch(`${worker.url}/fail`);
    expect(bad.status).toBe(500);
    await bad.text();
    const until = Date.now() + 15_000;
    while (!(seen.includes(STATE_TOKEN) && seen.includes(REGISTRY_CREDENTIAL) && /registry \w+ failed/.test(worker.stderr())) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual(expect.arrayContaining([STATE_TOKEN, REGISTRY_CREDENTIAL]));
    await stopPythonRuntime(worker);
    expect(await worker.exited).toBe(0);

    const out = { stdout: worker.stdout(), stderr: worker.stderr() };
    expect(logLineProblems(out, 'runtime')).toEqual([]);
    expect(out.stdout + out.stderr).not.toContain(STATE_TOKEN);
    expect(out.stdout + out.stderr).not.toContain(REGISTRY_CREDENTIAL);
    const records = logRecords(out.stderr);
    expect(records).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'info', source: 'function', function: 'logs', revision: 'logs-00001', msg: 'handling', path: '/ok' })]));
    expect(records).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'error', msg: 'handler threw' })]));
    expect(records.some((r) => r.level === 'warn' && /^registry \w+ failed/.test(String(r.msg)))).toBe(true);
    expect(records.map((r) => r.msg)).toContain('drained; exiting');
  });
});
