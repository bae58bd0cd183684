import type { StateErrorBody, StateErrorCode } from '@orrery/spec';
import type { ChangeRecord } from '@orrery/statestore';

/**
 * Server-Sent Events frames of `GET /v1/changes` (StateChangeEvent in @orrery/spec). Built as
 * strings: this runs once per change per stream.
 */

/** SSE data may not hold a line break; JSON text only has them as whitespace, so each becomes a new `data:` line (joined back with \n). */
const dataLines = (json: string): string => (/[\r\n]/.test(json) ? json.replace(/\r\n|\r|\n/g, '\ndata: ') : json);

/** Frames already built: the hub hands every stream of a keyspace the same change objects. */
const built = new WeakMap<ChangeRecord, string>();

/** One change: `id: <seq>` (what `Last-Event-ID` resumes from) and its StateChangeEvent. */
export function changeEventText(c: ChangeRecord): string {
  let text = built.get(c);
  if (text === undefined) {
    // The stored value is JSON text already (validated when written): it goes in as it is.
    const json = `{"seq":${c.seq},"key":${JSON.stringify(c.key)},"op":"${c.op}","version":${c.version}${c.value === undefined ? '' : `,"value":${c.value}`}}`;
    text = `id: ${c.seq}\ndata: ${dataLines(json)}\n\n`;
    built.set(c, text);
  }
  return text;
}

/**
 * A position with no event: the stream has covered every change up to `seq` (the start, or
 * changes its prefix skipped). EventSource and the SDKs take it as the new `Last-Event-ID`
 * without dispatching anything.
 */
export const positionText = (seq: number): string => `id: ${seq}\n\n`;

export const HEARTBEAT_TEXT = ': keep-alive\n\n';

/** The last frame of a stream the server cannot continue. */
export function errorEventText(code: StateErrorCode, message: string): string {
  return `event: error\ndata: ${dataLines(JSON.stringify({ error: message, code } satisfies StateErrorBody))}\n\n`;
}
