import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, renameSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvironmentSchema } from '@orrery/spec';
import { SourceReadSkipped } from './bounded-source.ts';
import { startWebhookServer, type WebhookServer } from './webhook-server.ts';

const opensslAvailable = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const dir = mkdtempSync(join(tmpdir(), 'orrery-webhook-'));
const servers: WebhookServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

function selfSigned(name: string, cn: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${cn}`, '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  return { cert, key };
}

const reviewBody = (object: unknown, operation = 'CREATE') =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'r-1', kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Function' }, operation, namespace: 'team-a', name: 'hello', object },
  });
const fn = (template: Record<string, unknown>) => ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'hello' }, spec: { template } });

async function post(url: string, path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function httpsGet(url: string, ca: string): Promise<{ status: number; subject: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { ca, agent: false }, (res) => {
      const cert = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, subject: String(cert.subject.CN) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('admission webhook server', () => {
  it('allow, deny and patch over HTTP', { timeout: 20_000 }, async () => {
    const s = await startWebhookServer();
    servers.push(s);
    const ok = await post(s.url, '/validate', reviewBody(fn({ source: { inline: 'x' } })));
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'r-1', allowed: true } });
    const bad = await post(s.url, '/validate', reviewBody(fn({ source: { inline: 'x' }, timeoutSeconds: 0 })));
    expect(bad.json.response).toMatchObject({ uid: 'r-1', allowed: false, status: { code: 422, reason: 'Invalid' } });
    expect(JSON.stringify(bad.json.response)).toContain('spec.template.timeoutSeconds');
    const mutated = await post(s.url, '/mutate', reviewBody(fn({ source: { inline: 'x' } })));
    const resp = mutated.json.response as { patchType: string; patch: string };
    expect(resp.patchType).toBe('JSONPatch');
    const ops = JSON.parse(Buffer.from(resp.patch, 'base64').toString()) as Array<{ path: string }>;
    expect(ops.map((o) => o.path)).toContain('/spec/template/executor');
    // Bad input: clear 4xx with a stable code.
    const malformed = await post(s.url, '/validate', '{"kind":"Nope"}');
    expect(malformed).toMatchObject({ status: 400, json: { code: 'bad_admission_review' } });
    expect((await post(s.url, '/validate', 'not json')).status).toBe(400);
    expect((await post(s.url, '/elsewhere', '{}')).status).toBe(404);
  });

  it('judges a Function against an Environment its cache does not hold yet, read from the source', { timeout: 20_000 }, async () => {
    const reads: string[] = [];
    const s = await startWebhookServer({
      lookup: { environment: () => undefined, keyspaceHolders: () => [] },
      source: {
        environment: async (ns, name) => {
          reads.push(`${ns}/${name}`);
          return EnvironmentSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name, namespace: ns }, spec: { allowedFunctionsPerContainer: 'infinite' } });
        },
      },
    });
    servers.push(s);
    const stateful = { ...fn({}), spec: { template: { environment: 'shared', source: { inline: 'x' } }, state: {} } };
    const denied = await post(s.url, '/validate', reviewBody(stateful));
    expect(denied.json.response).toMatchObject({ allowed: false, status: { code: 422 } });
    expect(JSON.stringify(denied.json.response)).toContain('state_environment_infinite');
    expect(reads).toEqual(['team-a/shared']);
    // Defaulting reads nothing: the validation judges.
    await post(s.url, '/mutate', reviewBody(stateful));
    expect(reads).toEqual(['team-a/shared']);
  });

  it('logs a failed read of the source, not a read the bound skipped (those are counted and logged together)', { timeout: 20_000 }, async () => {
    const lines: string[] = [];
    let fail: Error = new SourceReadSkipped('Environment team-a/shared');
    const s = await startWebhookServer({
      lookup: { environment: () => undefined, keyspaceHolders: () => [] },
      source: {
        environment: async () => {
          throw fail;
        },
      },
      log: (msg) => lines.push(msg),
    });
    servers.push(s);
    const stateful = { ...fn({}), spec: { template: { environment: 'shared', source: { inline: 'x' } }, state: {} } };
    expect((await post(s.url, '/validate', reviewBody(stateful))).json.response).toMatchObject({ allowed: true });
    expect(lines).toEqual([]);
    fail = new Error('connect ECONNREFUSED');
    expect((await post(s.url, '/validate', reviewBody(stateful))).json.response).toMatchObject({ allowed: true });
    expect(lines).toEqual(['could not read Environment team-a/shared for admission, judged by the cache: connect ECONNREFUSED']);
  });

  it.skipIf(!opensslAvailable)('serves TLS from cert/key files and picks up a rotated certificate', { timeout: 30_000 }, async () => {
    const first = selfSigned('first', 'orrery-webhook-1');
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    writeFileSync(cert, readFileSync(first.cert));
    writeFileSync(key, readFileSync(first.key));
    const s = await startWebhookServer({ tls: { certFile: cert, keyFile: key, reloadIntervalMs: 100 } });
    servers.push(s);
    expect(s.url).toMatch(/^https:/);
    expect(await httpsGet(s.url, readFileSync(first.cert, 'utf8'))).toEqual({ status: 200, subject: 'orrery-webhook-1' });
    // Rotation as a Secret volume update does it: new files swapped in atomically.
    const second = selfSigned('second', 'orrery-webhook-2');
    writeFileSync(join(dir, 'tls.key.new'), readFileSync(second.key));
    writeFileSync(join(dir, 'tls.crt.new'), readFileSync(second.cert));
    renameSync(join(dir, 'tls.key.new'), key);
    renameSync(join(dir, 'tls.crt.new'), cert);
    const deadline = Date.now() + 15_000;
    let subject = '';
    while (Date.now() < deadline) {
      subject = (await httpsGet(s.url, readFileSync(second.cert, 'utf8')).catch(() => ({ subject: '' }))).subject;
      if (subject === 'orrery-webhook-2') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(subject).toBe('orrery-webhook-2');
    // A broken file keeps the old certificate in service.
    writeFileSync(cert, 'garbage');
    s.reloadCertificate();
    expect((await httpsGet(s.url, readFileSync(second.cert, 'utf8'))).status).toBe(200);
  });
});
