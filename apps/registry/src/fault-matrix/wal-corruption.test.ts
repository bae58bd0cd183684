import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corruptWalRecord, walRecordFrames } from './wal-corruption.ts';

/** An etcd-style WAL frame: little-endian length word (top byte 0x80|pad when padded), record, padding to 8 bytes. */
function frame(record: Buffer): Buffer {
  const pad = (8 - (record.length % 8)) % 8;
  const word = BigInt(record.length) | (pad ? BigInt(0x80 | pad) << 56n : 0n);
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(word);
  return Buffer.concat([head, record, Buffer.alloc(pad)]);
}

describe('WAL records', () => {
  const records = [Buffer.from('abc'), Buffer.from('12345678'), Buffer.from('hello world'), Buffer.from('x'), Buffer.from('last record')];
  // A preallocated file: the frames, then zeroes.
  const file = Buffer.concat([...records.map(frame), Buffer.alloc(64)]);

  it('finds every record, skipping padding, and stops at the zeroed rest', () => {
    const frames = walRecordFrames(file);
    expect(frames.map((f) => file.subarray(f.start, f.end).toString())).toEqual(records.map(String));
  });

  it('damages the last byte of the middle record only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wal-test-'));
    mkdirSync(join(dir, 'member', 'wal'), { recursive: true });
    const path = join(dir, 'member', 'wal', '0000000000000000-0000000000000000.wal');
    writeFileSync(path, file);
    expect(corruptWalRecord(dir)).toBe(path);
    const after = readFileSync(path);
    const frames = walRecordFrames(after);
    const got = frames.map((f) => after.subarray(f.start, f.end).toString('latin1'));
    expect(got.filter((g, i) => g !== String(records[i]))).toHaveLength(1);
    expect(got[2]).not.toBe('hello world');
    expect(got[2]!.slice(0, -1)).toBe('hello worl');
  });
});
