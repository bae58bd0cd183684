/**
 * Incremental text/event-stream parser (WHATWG rules): `data` lines joined with \n, `event`,
 * `id`, comments ignored, a blank line ends a block. A block with an `id` but no data is a
 * position (EventSource updates its last event id without dispatching): statesvc's change feed
 * sends one to say how far a stream has read.
 */

export type StreamItem =
  | { kind: 'event'; event: string; data: string; id: string | undefined }
  | { kind: 'position'; id: string };

export class EventStreamParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | undefined;
  private sawId = false;

  /** The previous chunk ended in \r: a \n starting this one is the rest of that line end. */
  private skipLf = false;

  /** Feeds a decoded chunk; returns the items it completed. */
  feed(chunk: string): StreamItem[] {
    let start = 0;
    if (this.skipLf && chunk.charCodeAt(0) === 10) start = 1;
    this.skipLf = false;
    const text = this.buffer + chunk.slice(start);
    const out: StreamItem[] = [];
    start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(text.slice(start, i), out);
      if (c === 13) {
        if (i + 1 === text.length) this.skipLf = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = text.slice(start);
    return out;
  }

  private line(line: string, out: StreamItem[]): void {
    if (line === '') {
      if (this.data.length > 0) out.push({ kind: 'event', event: this.event || 'message', data: this.data.join('\n'), id: this.id });
      else if (this.sawId && this.id !== undefined) out.push({ kind: 'position', id: this.id });
      this.event = '';
      this.data = [];
      this.sawId = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
      this.sawId = true;
    }
  }
}
