/**
 * Starts the whole local platform once for the browser specs (`orrery up` on free ports, with
 * the examples, the console and a viewer user) and stops it afterwards, checking that nothing
 * survives. The specs get its URLs and secrets through vitest's `inject`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { hashPassword } from '@orrery/api';

export interface E2EPlatform {
  dataDir: string;
  consoleUrl: string;
  operatorUrl: string;
  routerUrls: string[];
  statesvcUrl: string;
  adminToken: string;
  masterKeyFile: string;
  viewer: { user: string; password: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    platform: E2EPlatform;
  }
}

const CLI = join(import.meta.dirname, '..', 'apps', 'cli', 'bin', 'orrery.mjs');
const VIEWER = { user: 'vera', password: 'viewer-password-e2e' };

let child: ChildProcess | undefined;
let dataDir = '';

export async function setup(project: TestProject): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'orrery-e2e-'));
  const usersFile = join(dataDir, 'users.txt');
  writeFileSync(usersFile, `${VIEWER.user}:viewer:${await hashPassword(VIEWER.password)}\n`, { mode: 0o600 });
  // Separate Redis keys so a developer's own platform on this machine is not disturbed.
  child = spawn(process.execPath, [CLI, 'up', '--port-base', '0', '--data-dir', dataDir, '--users-file', usersFile, '--redis-key-prefix', `e2e-${process.pid}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 200_000;
  while (!out.includes('orrery up: ready')) {
    if (child.exitCode !== null) throw new Error(`orrery up exited ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`orrery up not ready in 200 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const info = JSON.parse(readFileSync(join(dataDir, 'platform.json'), 'utf8')) as { consoleUrl?: string; storeUrl: string; routerUrls: string[]; statesvcUrl?: string };
  if (!info.consoleUrl || !info.statesvcUrl || info.routerUrls.length === 0) throw new Error(`the platform came up without console, statesvc or routers:\n${out}`);
  project.provide('platform', {
    dataDir,
    consoleUrl: info.consoleUrl,
    operatorUrl: info.storeUrl,
    routerUrls: info.routerUrls,
    statesvcUrl: info.statesvcUrl,
    adminToken: readFileSync(join(dataDir, 'secrets', 'admin.token'), 'utf8').trim(),
    masterKeyFile: join(dataDir, 'secrets', 'master.key'),
    viewer: VIEWER,
  });
}

export async function teardown(): Promise<void> {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGINT');
    // The fallback timer is cleared once the platform is down: a pending one would keep vitest's
    // main process alive ("something prevents the main process from exiting").
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
    clearTimeout(timer);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
