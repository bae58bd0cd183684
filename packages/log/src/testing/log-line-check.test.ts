import { describe, expect, it } from 'vitest';
import { logLineProblems, logRecords } from './log-line-check.ts';

const ok = '{"level":"info","time":"2026-12-02T05:40:01.123Z","component":"router","msg":"routes loaded"}';

describe('logLineProblems', () => {
  it('accepts JSON records and the listening handshake on stdout', () => {
    expect(logLineProblems({ stdout: 'listening http://127.0.0.1:1 admin http://127.0.0.1:2\n', stderr: `${ok}\n${ok}\n` }, 'router')).toEqual([]);
    expect(logLineProblems({ stdout: 'listening http://127.0.0.1:1\n', stderr: '' }, 'router')).toEqual([]);
  });

  it('names every line that is not a well-formed record of the component', () => {
    const problems = logLineProblems(
      {
        stdout: 'listening somewhere\n',
        stderr: [
          '[orrery-router] plain text',
          '{"level":30,"time":"2026-12-02T05:40:01.123Z","component":"router","msg":"m"}',
          '{"level":"info","time":1796189822452,"component":"router","msg":"m"}',
          '{"level":"info","time":"2026-12-02T05:40:01.123Z","component":"registry","msg":"m"}',
          '{"level":"info","time":"2026-12-02T05:40:01.123Z","component":"router"}',
          '[1,2]',
        ].join('\n'),
      },
      'router',
    );
    expect(problems.map((p) => p.split(':')[0] + ':' + p.split(':')[1])).toEqual([
      'stdout: not JSON',
      'stderr: not JSON',
      'stderr: level 30',
      'stderr: time 1796189822452',
      'stderr: component "registry", not router',
      'stderr: no msg',
      'stderr: not a record',
    ]);
  });

  it('the handshake is allowed on stdout only', () => {
    expect(logLineProblems({ stdout: '', stderr: 'listening http://127.0.0.1:1\n' }, 'router')).toHaveLength(1);
  });
});

describe('logRecords', () => {
  it('parses the JSON lines and skips the rest', () => {
    expect(logRecords(`${ok}\nplain\n{broken\n`)).toEqual([JSON.parse(ok)]);
  });
});
