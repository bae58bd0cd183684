/** Incremental text/event-stream parser (WHATWG rules: event/data/id fields, blank line dispatches). */

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | undefined;

  /** Feeds a decoded chunk; returns the events it completed. */
  feed(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const nl = this.buffer.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      const sepLen = this.buffer[nl] === '\r' && this.buffer[nl + 1] === '\n' ? 2 : 1;
      // A lone trailing \r may be the first half of \r\n: wait for more input.
      if (this.buffer[nl] === '\r' && nl + 1 === this.buffer.length) break;
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + sepLen);
      if (line === '') {
        if (this.data.length > 0 || this.event !== '') out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
        this.event = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.event = value;
      else if (field === 'data') this.data.push(value);
      else if (field === 'id') this.id = value;
    }
    return out;
  }
}
