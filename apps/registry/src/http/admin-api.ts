import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RegistryReplicationStatus } from '@orrery/spec';
import { AdminError, parseMemberId, type ClusterAdmin } from '../admin/cluster-admin.ts';
import { classifyEtcdError } from '../etcd/errors.ts';
import { bearerMatches, hasBearer, isLoopback } from './auth.ts';
import { BodyError, readJson } from './body.ts';
import { newRequestId, sendEnvelope, sendOk } from './envelope.ts';
import { BAD_TARGET_MESSAGE, requestUrl } from './request-url.ts';
import { HOST_MISSING_MESSAGE, hostMissing } from './protocol-errors.ts';

export interface AdminApiDeps {
  admin: ClusterAdmin;
  adminToken: string;
  /** The registry's own replication view (index revision, open watch streams). */
  registryView: () => RegistryReplicationStatus['registry'];
  /** The cross-region replication streams ([replication] targets_file). */
  replicationTargets: () => RegistryReplicationStatus['targets'];
}

const ROUTES: Record<string, 'GET' | 'POST'> = {
  '/admin/v1/status': 'GET',
  '/admin/v1/replication/status': 'GET',
  '/admin/v1/members/add-learner': 'POST',
  '/admin/v1/members/promote': 'POST',
  '/admin/v1/members/remove': 'POST',
  '/admin/v1/leader/transfer': 'POST',
};

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** The admin listener: loopback callers with the admin bearer token only. Routes and answers: REGISTRY_ADMIN_HTTP_API in @orrery/spec. */
export function adminHandler(deps: AdminApiDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = newRequestId();
    if (!isLoopback(req.socket.remoteAddress)) {
      sendEnvelope(res, requestId, 'forbidden', 'the admin API only accepts requests from 127.0.0.1 / ::1');
      return;
    }
    if (!hasBearer(req)) {
      sendEnvelope(res, requestId, 'unauthorized', 'the admin API needs Authorization: Bearer <admin_token>');
      return;
    }
    if (!bearerMatches(req, deps.adminToken)) {
      sendEnvelope(res, requestId, 'forbidden', 'the admin token is not valid');
      return;
    }
    const url = requestUrl(req, 'http://admin.invalid');
    if (!url || hostMissing(req)) {
      sendEnvelope(res, requestId, 'bad_request', url ? HOST_MISSING_MESSAGE : BAD_TARGET_MESSAGE);
      return;
    }
    const path = url.pathname;
    const method = ROUTES[path];
    if (!method) {
      sendEnvelope(res, requestId, 'not_found', `no admin route ${path}`);
      return;
    }
    if (req.method !== method) {
      res.setHeader('allow', method);
      sendEnvelope(res, requestId, 'method_not_allowed', `${path} accepts ${method} only`);
      return;
    }
    route(deps, path, req, url)
      .then((data) => sendOk(res, requestId, data))
      .catch((err: unknown) => {
        if (err instanceof AdminError || err instanceof BodyError) return sendEnvelope(res, requestId, err.code, err.message);
        // The admin API's callers are the registry's operators: they get etcd's own text too.
        const c = classifyEtcdError(err, 'read_failed');
        sendEnvelope(res, requestId, c.code, `${c.message} (etcd: ${c.detail})`);
      });
  };
}

/** `force` from the body (`true`/`false`) or the query (`?force=true`); either one set to true forces. */
function parseForce(body: unknown, url: URL): boolean {
  const inBody = field(body, 'force');
  if (inBody !== undefined && typeof inBody !== 'boolean') throw new AdminError('bad_request', 'force must be true or false (JSON boolean), e.g. {"id": "8e9e05c52164694d", "force": true}');
  const inQuery = url.searchParams.getAll('force');
  if (inQuery.some((v) => v !== 'true' && v !== 'false')) throw new AdminError('bad_request', 'force must be true or false, e.g. ?force=true');
  return inBody === true || inQuery.includes('true');
}

async function route(deps: AdminApiDeps, path: string, req: IncomingMessage, url: URL): Promise<unknown> {
  switch (path) {
    case '/admin/v1/status':
      return deps.admin.status();
    case '/admin/v1/replication/status':
      return { ...(await deps.admin.replicationStatus()), registry: deps.registryView(), targets: deps.replicationTargets() } satisfies RegistryReplicationStatus;
    case '/admin/v1/members/add-learner': {
      const body = await readJson(req);
      const name = field(body, 'name');
      const peerURL = field(body, 'peerURL');
      if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(name)) {
        throw new AdminError('bad_request', 'name is required: the new member\'s etcd --name, e.g. "etcd-3"');
      }
      if (typeof peerURL !== 'string' || !/^https?:\/\/[^\s/]+$/.test(peerURL)) {
        throw new AdminError('bad_request', 'peerURL is required: the new member\'s peer URL, e.g. "http://10.0.0.14:2380"');
      }
      return deps.admin.addLearner(name, peerURL);
    }
    case '/admin/v1/members/promote': {
      const body = await readJson(req);
      const id = parseMemberId(field(body, 'id'), 'id');
      return deps.admin.promote(id, parseForce(body, url));
    }
    case '/admin/v1/members/remove':
      return deps.admin.remove(parseMemberId(field(await readJson(req), 'id'), 'id'));
    case '/admin/v1/leader/transfer':
      return deps.admin.transferLeader(parseMemberId(field(await readJson(req), 'targetId'), 'targetId'));
  }
  throw new AdminError('not_found', `no admin route ${path}`);
}
