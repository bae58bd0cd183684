import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { endpointsText, LocalBackend } from './local-backend.ts';

// The endpoints file the routers poll: written when its content changes, left alone otherwise.
type Endpoint = { namespace: string; function: string; revision: string; address: string; ready: boolean };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function backendWith(extra: Endpoint[]): { backend: LocalBackend; file: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'orrery-endpoints-file-'));
  dirs.push(dataDir);
  const file = join(dataDir, 'endpoints.yaml');
  const backend = new LocalBackend({ runtimeCommand: { command: process.execPath, args: [] }, dataDir, registryUrls: [], endpointsFile: file, extraEndpoints: () => extra });
  return { backend, file };
}
const published = () => new Promise((r) => setTimeout(r, 60)); // the backend coalesces for 20 ms

describe('the local backend’s endpoints file', () => {
  it('is written once per content: an unchanged table is not rewritten, a changed one is, a removed file comes back', async () => {
    const extra: Endpoint[] = [{ namespace: 'default', function: 'f', revision: 'f-00001', address: '127.0.0.1:4001', ready: true }];
    const { backend, file } = backendWith(extra);
    backend.publish();
    await published();
    const first = statSync(file);
    expect(readFileSync(file, 'utf8')).toContain('127.0.0.1:4001');

    backend.publish();
    await published();
    expect(statSync(file).ino).toBe(first.ino); // the same file: no write-and-rename

    extra.push({ namespace: 'default', function: 'f', revision: 'f-00001', address: '127.0.0.1:4002', ready: false });
    backend.publish();
    await published();
    expect(statSync(file).ino).not.toBe(first.ino);
    expect(readFileSync(file, 'utf8')).toContain('127.0.0.1:4002');

    rmSync(file);
    backend.publish();
    await published();
    expect(readFileSync(file, 'utf8')).toContain('127.0.0.1:4002');
    await backend.stopAll();
  });

  it('is JSON, one worker per line, which a YAML reader reads as the same list', () => {
    const list: Endpoint[] = [
      { namespace: 'default', function: 'f', revision: 'f-00001', address: '127.0.0.1:4001', ready: true },
      { namespace: 'team', function: 'g', revision: 'g-00002', address: '[::1]:4002', ready: false },
    ];
    const text = endpointsText(list);
    expect(JSON.parse(text)).toEqual(list);
    expect(parse(text)).toEqual(list);
    expect(text.trim().split('\n')).toHaveLength(4);
    expect(JSON.parse(endpointsText([]))).toEqual([]);
    expect(parse(endpointsText([]))).toEqual([]);
  });
});
