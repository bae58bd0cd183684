import { describe, expect, it } from 'vitest';
import { listeningInodes, socketInode } from './listening-sockets.ts';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:59D8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 20 4 30 10 -1
   2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 654321 1 0000000000000000 100 0 0 10 0
`;

describe('listeningInodes', () => {
  it('maps each listening port to its inode and skips established connections', () => {
    expect(listeningInodes(TCP)).toEqual(new Map([[0x59d8, '123456'], [0x1f91, '654321']]));
  });

  it('reads nothing from an empty or missing file', () => {
    expect(listeningInodes('')).toEqual(new Map());
  });
});

describe('socketInode', () => {
  it('reads the inode of a socket link and nothing else', () => {
    expect(socketInode('socket:[123456]')).toBe('123456');
    expect(socketInode('pipe:[5]')).toBeUndefined();
    expect(socketInode('/dev/null')).toBeUndefined();
  });
});
