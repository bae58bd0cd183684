import type { IncomingMessage, ServerResponse } from 'node:http';
import { DNS1123_LABEL, type OperatorEventList } from '@orrery/spec';
import { sendJson } from '@orrery/control-http';
import type { LocalEventLog } from './local-event-log.ts';

const KINDS = new Set(['Function', 'Revision', 'Environment', 'RegistryCluster', 'StateSync']);

/**
 * `GET /v1/events?namespace=NS[&kind=KIND&name=NAME]` on the local operator: the Events it
 * recorded (docs/operations.md, "Events"). The caller checks the store token first.
 */
export function createEventsHandler(log: LocalEventLog) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET') {
      sendJson(res, 405, { error: 'use GET /v1/events?namespace=NS&kind=KIND&name=NAME', code: 'method_not_allowed' });
      return;
    }
    const q = new URL(req.url ?? '/', 'http://operator').searchParams;
    const namespace = q.get('namespace') ?? undefined;
    const kind = q.get('kind') ?? undefined;
    const name = q.get('name') ?? undefined;
    if (!namespace || !DNS1123_LABEL.test(namespace)) {
      sendJson(res, 400, { error: 'give ?namespace= (a DNS-1123 label), optionally &kind= and &name=', code: 'invalid_query' });
      return;
    }
    if (kind !== undefined && !KINDS.has(kind)) {
      sendJson(res, 400, { error: `kind must be one of ${[...KINDS].join(', ')}`, code: 'invalid_query' });
      return;
    }
    if (name !== undefined && (!kind || !DNS1123_LABEL.test(name))) {
      sendJson(res, 400, { error: 'name needs kind and must be a DNS-1123 label', code: 'invalid_query' });
      return;
    }
    const body: OperatorEventList = { events: log.list({ namespace, kind, name }) };
    sendJson(res, 200, body);
  };
}
