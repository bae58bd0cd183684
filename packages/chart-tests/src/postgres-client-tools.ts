/**
 * Debian's Postgres client programs (pg_dump, pg_restore, psql) run from the node against a
 * Postgres pod's IP: the process kubelet has no `kubectl exec`, which is how a user runs them
 * inside the pod. The password goes in PGPASSWORD, never on the command line.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = '/usr/lib/postgresql';

/** `<newest Debian postgres>/bin/<tool>`. */
export function postgresTool(tool: 'pg_dump' | 'pg_restore' | 'psql'): string {
  const versions = existsSync(ROOT) ? readdirSync(ROOT).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  const bin = versions.map((v) => join(ROOT, v, 'bin', tool)).find((p) => existsSync(p));
  if (!bin) throw new Error(`${tool} not found under ${ROOT}: apt-get install postgresql-client`);
  return bin;
}

export interface PostgresTarget {
  host: string;
  user: string;
  database: string;
  password: string;
}

/** Runs a client tool against `target` (-h/-U/-d added); resolves with stdout, rejects with stderr. */
export function runPostgresTool(tool: 'pg_dump' | 'pg_restore' | 'psql', target: PostgresTarget, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      postgresTool(tool),
      ['-h', target.host, '-U', target.user, '-d', target.database, ...args],
      { env: { ...process.env, PGPASSWORD: target.password, PGCONNECT_TIMEOUT: '10' }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? reject(new Error(`${tool} failed: ${stderr || err.message}`)) : resolve(stdout)),
    );
  });
}
