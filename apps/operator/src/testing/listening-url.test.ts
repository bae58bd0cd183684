import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { listeningUrl } from './listening-url.ts';

const node = (code: string) => spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });

describe('listeningUrl', () => {
  it('reads the URL from the listening line, even when it arrives in pieces after other output', async () => {
    const child = node(`process.stdout.write('starting\\nlisten'); setTimeout(() => process.stdout.write('ing http://127.0.0.1:4242 admin http://127.0.0.1:4243\\n'), 50); setTimeout(() => {}, 500);`);
    await expect(listeningUrl(child)).resolves.toBe('http://127.0.0.1:4242');
    child.kill();
  });

  it('rejects when the process exits first, with what the caller knows about why', async () => {
    const child = node(`process.stderr.write('port in use'); process.exit(3);`);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await expect(listeningUrl(child, () => stderr)).rejects.toThrow(/exited \(3\) before it was listening: port in use/);
  });
});
