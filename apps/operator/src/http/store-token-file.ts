import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The local operator's store token when none is given (`--store-token-file`): made once in
 * `<data-dir>/secrets/store.token` (folder 0700, file 0600) and kept, so the routers, statesvc and
 * the CLI can be pointed at the same file. There is no token-less mode any more: on one machine
 * every worker shares the loopback interface with the platform (issue 20 item 7).
 */
export function ensureStoreToken(dataDir: string, log?: (msg: string, fields?: Record<string, unknown>) => void): string {
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = join(dir, 'store.token');
  if (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') {
    writeFileSync(file, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
    log?.('no --store-token-file: made a store token; give the routers, statesvc and the CLI --store-token-file', { file });
  }
  chmodSync(file, 0o600);
  return file;
}
