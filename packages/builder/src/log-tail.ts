import { MAX_BUILD_LOG_BYTES } from '@orrery/spec';

/** Keeps the last `max` bytes of a build's output (status.build.log), cut at a line start when it can. */
export class LogTail {
  private text = '';
  constructor(private readonly max: number = MAX_BUILD_LOG_BYTES) {}

  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.max * 4) this.text = this.text.slice(-this.max * 2);
  }

  toString(): string {
    let buf = Buffer.from(this.text, 'utf8');
    if (buf.length <= this.max) return this.text;
    buf = buf.subarray(buf.length - this.max);
    // Skip a partial UTF-8 sequence and the partial first line.
    let start = 0;
    while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start += 1;
    const text = buf.subarray(start).toString('utf8');
    const newline = text.indexOf('\n');
    return newline >= 0 && newline < text.length - 1 ? text.slice(newline + 1) : text;
  }
}
