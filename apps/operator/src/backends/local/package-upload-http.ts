/**
 * `PUT /v1/packages/<namespace>/<sha256>` (and `HEAD` to ask whether it is there): where `orrery
 * deploy --code DIR` puts a package archive on the local platform (docs/packages.md). Whoever
 * may create a Function in the namespace may upload: the store token (the store API's caller), or
 * an admin-API credential (session or admin token) of role operator or above — a viewer may not.
 * The body is capped (413 `package_too_large`), must be a gzip'd tar or a zip, and must hash to
 * the sha256 in the path (400 `package_sha256_mismatch`); archives are stored content-addressed
 * under `<data-dir>/packages/archives/`, written to a temp file and renamed, so a build never
 * reads half an upload.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiServices, ORRERY_AUTHORIZATION_HEADER, type Principal, resolveContext, roleAllows } from '@orrery/api';
import { sendJson } from '@orrery/control-http';
import { PACKAGE_SHA256_PATTERN } from '@orrery/spec';
import { packagePaths } from './local-package-paths.ts';

export const PACKAGES_PREFIX = '/v1/packages/';
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface PackageUploadOptions {
  dataDir: string;
  /** The store token (absent: loopback callers are the store's, as for /v1/store/). */
  storeToken?: string;
  /** The admin API's services: sessions and the admin token. */
  services?: ApiServices;
  /** Who calls, from the admin API's credential (default: resolveContext over `services`). */
  principalOf?: (req: IncomingMessage) => Promise<Principal | undefined>;
  maxArchiveBytes: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

type Refusal = { status: number; code: string; error: string };

function isLoopback(addr: string | undefined): boolean {
  return !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v : undefined;
}

export function createPackageUploadHandler(o: PackageUploadOptions) {
  const paths = packagePaths(o.dataDir);
  const storeToken = o.storeToken ? Buffer.from(o.storeToken) : undefined;
  const principalOf =
    o.principalOf ??
    (async (req: IncomingMessage): Promise<Principal | undefined> => {
      if (!o.services) return undefined;
      const facts = { authorization: header(req, 'authorization'), orreryAuthorization: header(req, ORRERY_AUTHORIZATION_HEADER), cookie: header(req, 'cookie'), secure: false, clientAddress: req.socket.remoteAddress };
      return (await resolveContext(o.services, facts, () => {})).principal;
    });

  async function allowed(req: IncomingMessage): Promise<Refusal | undefined> {
    const authorization = header(req, 'authorization');
    const bearer = authorization?.startsWith('Bearer ') ? Buffer.from(authorization.slice(7)) : undefined;
    if (storeToken ? bearer && bearer.length === storeToken.length && timingSafeEqual(bearer, storeToken) : isLoopback(req.socket.remoteAddress)) return undefined;
    const principal = await principalOf(req);
    if (principal) {
      if (roleAllows(principal.role, 'operator')) return undefined;
      return { status: 403, code: 'forbidden', error: `${principal.who} is a ${principal.role}: uploading a package needs the operator role, as creating a Function does` };
    }
    return { status: 401, code: 'unauthorized', error: 'log in (orrery login) or send the store token as Authorization: Bearer' };
  }

  /** Reads the body up to the cap; undefined when it went over (the answer is then sent). */
  async function body(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
    const tooLarge = () => {
      res.shouldKeepAlive = false;
      sendJson(res, 413, { error: `the archive is over the ${o.maxArchiveBytes}-byte limit (--max-package-bytes); leave out what the function does not need, or host it and set package.url`, code: 'package_too_large' });
    };
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > o.maxArchiveBytes) {
      tooLarge();
      req.resume();
      return undefined;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > o.maxArchiveBytes) {
        tooLarge();
        req.destroy();
        return undefined;
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  /** Answers requests under /v1/packages/; false for any other path. */
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (!pathname.startsWith(PACKAGES_PREFIX)) return false;
    const refuse = (r: Refusal) => {
      res.shouldKeepAlive = false;
      sendJson(res, r.status, { error: r.error, code: r.code });
      return true;
    };
    const parts = pathname.slice(PACKAGES_PREFIX.length).split('/');
    if (parts.length !== 2) return refuse({ status: 404, code: 'not_found', error: `no route ${pathname}: use ${PACKAGES_PREFIX}<namespace>/<sha256>` });
    const [namespace, sha256] = parts as [string, string];
    if (req.method !== 'PUT' && req.method !== 'HEAD') {
      res.setHeader('allow', 'PUT, HEAD');
      return refuse({ status: 405, code: 'method_not_allowed', error: `${req.method} is not allowed here: PUT the archive, or HEAD to ask whether it is stored` });
    }
    const denied = await allowed(req);
    if (denied) return refuse(denied);
    if (!NAMESPACE.test(namespace)) return refuse({ status: 400, code: 'namespace_invalid', error: `"${namespace.slice(0, 70)}" is not a namespace name (lower-case letters, digits and "-", at most 63)` });
    if (!PACKAGE_SHA256_PATTERN.test(sha256)) return refuse({ status: 400, code: 'package_sha256', error: 'the path ends with the archive\'s SHA-256: 64 lower-case hex digits (sha256sum package.tgz)' });
    const file = paths.archive(sha256);
    if (req.method === 'HEAD') {
      res.writeHead(existsSync(file) ? 200 : 404).end();
      return true;
    }
    const bytes = await body(req, res);
    if (!bytes) return true;
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== sha256) return refuse({ status: 400, code: 'package_sha256_mismatch', error: `the body's SHA-256 is ${actual}, not ${sha256}: upload the archive the path names` });
    const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
    const zip = bytes[0] === 0x50 && bytes[1] === 0x4b;
    if (!gzip && !zip) return refuse({ status: 400, code: 'package_not_archive', error: "the body is neither a gzip'd tar (.tgz) nor a zip" });
    if (existsSync(file)) {
      sendJson(res, 200, { sha256, bytes: bytes.length, stored: 'already' });
      return true;
    }
    await mkdir(paths.archives, { recursive: true, mode: 0o755 });
    const tmp = `${file}.upload-${randomBytes(6).toString('hex')}`;
    try {
      await writeFile(tmp, bytes, { mode: 0o644 });
      await rename(tmp, file);
    } finally {
      await rm(tmp, { force: true });
    }
    o.log?.(`package archive ${sha256.slice(0, 12)} uploaded for ${namespace}`, { namespace, sha256, bytes: bytes.length });
    sendJson(res, 201, { sha256, bytes: bytes.length, stored: 'now' });
    return true;
  };
}
