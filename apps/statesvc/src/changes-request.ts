import { HttpError } from './http-error.ts';
import { parseListPrefix } from './state-key.ts';

export interface ChangesRequest {
  prefix?: string;
  /** Resume after this change; undefined = follow from now. */
  since?: number;
}

function position(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new HttpError('bad_request', `${what} must be a change number (the seq of an event, 0 for the start), not ${JSON.stringify(value.slice(0, 40))}`);
  return Number(value);
}

/**
 * `GET /v1/changes?prefix=&since=` with an optional `Last-Event-ID` header. The header wins over
 * `since`: it is what EventSource sends when it reconnects to the URL it was given, so it is
 * always the later position. An empty `since` is no `since`.
 */
export function parseChangesRequest(query: string, lastEventId: string | string[] | undefined): ChangesRequest {
  const params = new URLSearchParams(query);
  const prefix = parseListPrefix(params.get('prefix'));
  if (Array.isArray(lastEventId)) throw new HttpError('bad_request', 'send Last-Event-ID at most once');
  const sinceText = params.get('since');
  let since: number | undefined;
  if (lastEventId !== undefined && lastEventId.trim() !== '') since = position(lastEventId.trim(), 'Last-Event-ID');
  else if (sinceText !== null && sinceText !== '') since = position(sinceText, 'since');
  return { prefix, since };
}
