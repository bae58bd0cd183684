import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionLogDir, listLogFiles, listPoolLogFiles, poolLogDir, readNewLines, specializationStart } from './worker-logs.ts';

const root = mkdtempSync(join(tmpdir(), 'orrery-cli-logs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('worker log files', () => {
  it('lists workers per revision in start order, filtered by revision', () => {
    const dir = functionLogDir(root, 'default', 'counter');
    mkdirSync(dir, { recursive: true });
    for (const f of ['counter-00002-3.log', 'counter-00001-10.log', 'counter-00001-2.log', 'notes.txt']) writeFileSync(join(dir, f), '');
    expect(listLogFiles(dir).map((f) => f.worker)).toEqual(['counter-00001-2', 'counter-00001-10', 'counter-00002-3']);
    expect(listLogFiles(dir, 'counter-00002').map((f) => f.revision)).toEqual(['counter-00002']);
    expect(listLogFiles(join(root, 'missing'))).toEqual([]);
  });

  it('reads whole lines only, and continues from the returned offset', () => {
    const file = join(root, 'w.log');
    writeFileSync(file, 'one\ntwo\nthr');
    const a = readNewLines(file, 0);
    expect(a.lines).toEqual(['one', 'two']);
    appendFileSync(file, 'ee\n');
    const b = readNewLines(file, a.offset);
    expect(b.lines).toEqual(['three']);
    expect(readNewLines(file, b.offset).lines).toEqual([]);
    writeFileSync(file, 'new\n'); // truncated: start over
    expect(readNewLines(file, b.offset).lines).toEqual(['new']);
  });

  it('pool workers: listed in start order, attributed from their specialization line', () => {
    const dir = poolLogDir(root, 'default');
    mkdirSync(dir, { recursive: true });
    for (const f of ['pool-nodejs-10.log', 'pool-nodejs-2.log']) writeFileSync(join(dir, f), '');
    expect(listPoolLogFiles(dir).map((f) => f.worker)).toEqual(['pool-nodejs-2', 'pool-nodejs-10']);
    const lines = [
      '{"level":"info","msg":"worker ready"}',
      '{"level":"info","msg":"function loaded","function":"counter","revision":"counter-00002"}',
      'console output of the handler',
    ];
    expect(specializationStart(lines, 'counter')).toEqual({ index: 1, revision: 'counter-00002' });
    expect(specializationStart(lines, 'counter', 'counter-00001')).toEqual({ index: -1, revision: 'counter-00002' });
    expect(specializationStart(lines, 'cart').index).toBe(-1);
  });
});
