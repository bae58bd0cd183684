/**
 * PUT /v1/packages/ on its own (package-upload-http.ts): who may upload (the store token, an
 * operator-role login; not a viewer, not anonymous, not a wrong token) and what is refused
 * (oversized by header and by stream, a wrong hash, a non-archive, a bad namespace or path).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPackageUploadHandler } from './package-upload-http.ts';
import { packagePaths } from './local-package-paths.ts';

const TOKEN = 'upload-test-store-token';
const MAX = 4096;
let dir: string;
let server: Server;
let base: string;
const archive = gzipSync(Buffer.from('a tar would be here'));
const sha = createHash('sha256').update(archive).digest('hex');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-upload-'));
  const handle = createPackageUploadHandler({
    dataDir: dir,
    storeToken: TOKEN,
    maxArchiveBytes: MAX,
    principalOf: async (req) => {
      const auth = req.headers.authorization;
      if (auth === 'Bearer sess_viewer') return { who: 'vera', role: 'viewer', via: 'session' };
      if (auth === 'Bearer sess_operator') return { who: 'otto', role: 'operator', via: 'session' };
      return undefined;
    },
  });
  server = createServer((req, res) => {
    void handle(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const put = (path: string, body: Uint8Array, authorization?: string) =>
  fetch(`${base}${path}`, { method: 'PUT', headers: authorization ? { authorization } : {}, body: new Uint8Array(body) });

describe('PUT /v1/packages/<namespace>/<sha256>', () => {
  it.each([
    ['no credential', undefined, 401, 'unauthorized'],
    ['a wrong token', 'Bearer nope', 401, 'unauthorized'],
    ['a viewer', 'Bearer sess_viewer', 403, 'forbidden'],
  ])('refuses %s', async (_what, authorization, status, code) => {
    const res = await put(`/v1/packages/default/${sha}`, archive, authorization);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ code });
    expect(existsSync(packagePaths(dir).archive(sha))).toBe(false);
  });

  it('takes the archive from an operator-role login and from the store token, once', async () => {
    const first = await put(`/v1/packages/default/${sha}`, archive, 'Bearer sess_operator');
    expect(first.status).toBe(201);
    expect(existsSync(packagePaths(dir).archive(sha))).toBe(true);
    const again = await put(`/v1/packages/shop/${sha}`, archive, `Bearer ${TOKEN}`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ stored: 'already' });
  });

  it('refuses an oversized body: by its Content-Length, and by what arrives when chunked', async () => {
    const big = Buffer.alloc(MAX + 1, 7);
    const declared = await put(`/v1/packages/default/${'c'.repeat(64)}`, big, `Bearer ${TOKEN}`);
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ code: 'package_too_large' });
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/v1/packages/default/${'d'.repeat(64)}`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.write(big.subarray(0, MAX));
      req.end(big.subarray(MAX));
    });
    expect(chunked).toBe(413);
  });

  it('refuses a body whose hash is not the path\'s, a non-archive, a bad namespace or sha256, other methods', async () => {
    const wrong = await put(`/v1/packages/default/${'e'.repeat(64)}`, archive, `Bearer ${TOKEN}`);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'package_sha256_mismatch' });
    const text = Buffer.from('plain text');
    const notArchive = await put(`/v1/packages/default/${createHash('sha256').update(text).digest('hex')}`, text, `Bearer ${TOKEN}`);
    expect(await notArchive.json()).toMatchObject({ code: 'package_not_archive' });
    expect(await (await put(`/v1/packages/Not_A_Namespace/${sha}`, archive, `Bearer ${TOKEN}`)).json()).toMatchObject({ code: 'namespace_invalid' });
    expect(await (await put('/v1/packages/default/..%2f..%2fetc', archive, `Bearer ${TOKEN}`)).json()).toMatchObject({ code: 'package_sha256' });
    expect((await put(`/v1/packages/default/${sha}/extra`, archive, `Bearer ${TOKEN}`)).status).toBe(404);
    expect((await fetch(`${base}/v1/packages/default/${sha}`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(405);
  });
});
