import { describe, expect, it } from 'vitest';
import { probeCommands } from './probe-redis.ts';

describe('probeCommands', () => {
  it('PING alone, or AUTH first as RESP arrays (passwords with spaces or CRLF stay one argument)', () => {
    expect(probeCommands()).toBe('*1\r\n$4\r\nPING\r\n');
    expect(probeCommands({ password: 'p w' })).toBe('*2\r\n$4\r\nAUTH\r\n$3\r\np w\r\n*1\r\n$4\r\nPING\r\n');
    expect(probeCommands({ username: 'app', password: 'é' })).toBe('*3\r\n$4\r\nAUTH\r\n$3\r\napp\r\n$2\r\né\r\n*1\r\n$4\r\nPING\r\n');
  });
});
