/**
 * Damages one etcd member's WAL on disk the way a bad sector would, for FAULT-003: a byte
 * inside one committed record (not the last: a torn last record is something etcd repairs by
 * truncation, a damaged middle one it must refuse). The member must be stopped.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Byte ranges of the records of an etcd WAL file (8-byte length frame, then the record, then padding). */
export function walRecordFrames(buf: Buffer): Array<{ start: number; end: number }> {
  const frames: Array<{ start: number; end: number }> = [];
  let off = 0;
  while (off + 8 <= buf.length) {
    const field = buf.readBigInt64LE(off);
    if (field === 0n) break; // the preallocated, zeroed rest of the file
    const length = Number(BigInt.asUintN(56, field));
    // The top byte flags padding: bit 7 set, low 3 bits the pad length.
    const top = Number(BigInt.asUintN(64, field) >> 56n);
    const pad = top & 0x80 ? top & 0x7 : 0;
    const start = off + 8;
    if (start + length > buf.length) break;
    frames.push({ start, end: start + length });
    off = start + length + pad;
  }
  return frames;
}

/** Flips the last byte of a record in the middle of the member's newest WAL file; answers the file. */
export function corruptWalRecord(dataDir: string): string {
  const dir = join(dataDir, 'member', 'wal');
  const files = readdirSync(dir).filter((f) => f.endsWith('.wal')).sort();
  const file = join(dir, files.at(-1)!);
  const buf = readFileSync(file);
  const frames = walRecordFrames(buf);
  if (frames.length < 4) throw new Error(`${file} holds ${frames.length} records, too few to damage one in the middle`);
  const victim = frames[Math.floor(frames.length / 2)]!;
  // The record's last byte lies in its data (covered by the record's CRC), so protobuf still decodes.
  buf[victim.end - 1] = buf[victim.end - 1]! ^ 0xff;
  writeFileSync(file, buf);
  return file;
}
