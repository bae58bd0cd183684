/**
 * The everyday CLI against the real admin API: --version and `version`, `get` with AGE, -o wide
 * and -o name, `apply -f -` from stdin, and the bash completion script asking the real CLI for
 * names (through an `orrery` on PATH that is this CLI).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startCliApi, type CliApiHarness } from '../testing/cli-api-harness.ts';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
const manifest = (name: string, namespace = 'default') => `apiVersion: orrery.dev/v1alpha1
kind: Function
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  template:
    source: {inline: "export default () => new Response('hi')"}
    containerConcurrency: 3
    executor: pool
    autoscaling: {minScale: 0, maxScale: 4}
`;

let h: CliApiHarness;
let bin = '';
beforeAll(async () => {
  h = await startCliApi();
  bin = mkdtempSync(join(tmpdir(), 'orrery-cli-bin-'));
  writeFileSync(join(bin, 'orrery'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
  chmodSync(join(bin, 'orrery'), 0o755);
}, 60_000);
afterAll(async () => {
  await h?.close();
  rmSync(bin, { recursive: true, force: true });
});

describe('orrery version', () => {
  it('--version, -v and `version` print the package.json version', { timeout: 30_000 }, async () => {
    for (const args of [['--version'], ['-v'], ['version']]) expect(await h.orrery(args)).toMatchObject({ code: 0, out: `orrery ${VERSION}\n` });
    expect((await h.orrery(['version', 'extra'])).code).toBe(2);
  });
});

describe('apply -f - and get', () => {
  it('apply reads manifests from stdin; invalid stdin applies nothing and names <stdin>', { timeout: 60_000 }, async () => {
    const r = await h.orrery(['apply', '-f', '-'], {}, `${manifest('one')}---\n${manifest('two', 'shop')}`);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe('function.orrery.dev/one created\nfunction.orrery.dev/two created\n');
    const bad = await h.orrery(['apply', '-f', '-'], {}, manifest('three').replace('containerConcurrency: 3', 'containerConcurrency: -1'));
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^<stdin>:\d+: Function\/three: spec\.template\.containerConcurrency: /m);
    expect(await h.store.get('Function', 'default', 'three')).toBeUndefined();
    const empty = await h.orrery(['apply', '-f', '-'], {}, '');
    expect(empty.code).toBe(1);
    expect(empty.err).toContain('no manifests in stdin');
  });

  it('tables end with AGE; -o wide adds how it runs; -o name prints kind.orrery.dev/name', { timeout: 60_000 }, async () => {
    const table = await h.orrery(['get', 'functions', '-A']);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toContain('shop');
    const [header, ...rows] = table.out.trimEnd().split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'READY', 'LATEST', 'URL', 'TRAFFIC', 'AGE']);
    expect(rows.map((r) => r.split(/\s+/).at(-1))).toEqual([expect.stringMatching(/^\d+s$/), expect.stringMatching(/^\d+s$/)]);
    const wide = await h.orrery(['get', 'fn', 'one', '-o', 'wide']);
    expect(wide.out.split('\n')[0]!.split(/\s+/).slice(6)).toEqual(['ENVIRONMENT', 'EXECUTOR', 'CONCURRENCY', 'SCALE', 'LATEST-CREATED', 'KEYSPACE', 'STICKY']);
    expect(wide.out.split('\n')[1]!.split(/\s+/).slice(6)).toEqual(['nodejs', 'pool', '3', '0:4', '<none>', '<none>', '<none>']);
    expect(await h.orrery(['get', 'functions', '-A', '-o', 'name'])).toMatchObject({ code: 0, out: 'function.orrery.dev/one\nfunction.orrery.dev/two\n' });
    const badOutput = await h.orrery(['get', 'functions', '-o', 'xml']);
    expect(badOutput.code).toBe(2);
    expect(badOutput.err).toContain('-o must be table, wide, yaml, json or name');
  });
});

describe('orrery completion', () => {
  it('the bash script completes names the real CLI lists, in the namespace typed', { timeout: 60_000 }, async () => {
    const script = await h.orrery(['completion', 'bash']);
    expect(script.code, script.err).toBe(0);
    const file = join(bin, 'orrery.bash');
    writeFileSync(file, script.out);
    // Async: the admin API answering the script's `orrery get` runs in this process.
    const complete = async (...words: string[]) =>
      (await promisify(execFile)('bash', ['-c', `source ${file}; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _orrery; printf '%s\\n' "\${COMPREPLY[@]}"`, 'complete', ...words], {
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ORRERY_API_URL: h.apiUrl, ORRERY_API_TOKEN: ADMIN_TOKEN },
        encoding: 'utf8',
      })).stdout.trim();
    expect(await complete('orrery', 'desc')).toBe('describe');
    expect(await complete('orrery', 'get', 'functions', '')).toBe('one');
    expect(await complete('orrery', 'delete', 'fn', '-n', 'shop', '')).toBe('two');
    expect(await complete('orrery', 'deploy', '--')).toContain('--concurrency');
    expect((await h.orrery(['completion', 'tcsh'])).code).toBe(2);
  });
});
