import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const bin = join(root, 'apps', 'cli', 'bin', 'orrery.mjs');

function orrery(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `file:line: Kind/name: path: reason` for every problem in examples/invalid (written by hand from the files). */
const EXPECTED_INVALID = [
  'examples/invalid/autoscaling.yaml:11: Function/bad-autoscaling: spec.template.autoscaling.window: autoscaling_window',
  'examples/invalid/autoscaling.yaml:12: Function/bad-autoscaling: spec.template.autoscaling.panicThresholdPercentage: autoscaling_panic_threshold',
  'examples/invalid/autoscaling.yaml:13: Function/bad-autoscaling: spec.template.autoscaling.minScale: autoscaling_scale_bounds',
  'examples/invalid/autoscaling.yaml:15: Function/bad-autoscaling: spec.template.autoscaling.targetBurstCapacity: autoscaling_burst_capacity',
  'examples/invalid/executor-environment.yaml:12: Function/stateful-container: spec.state: state_executor_container',
  'examples/invalid/executor-environment.yaml:32: Function/stateful-shared: spec.state: state_environment_infinite',
  'examples/invalid/keyspace.yaml:11: Function/bad-keyspace: spec.state.keyspace: keyspace_pattern',
  'examples/invalid/keyspace.yaml:22: Function/long-keyspace: spec.state.keyspace: keyspace_too_long',
  'examples/invalid/quotas.yaml:11: Function/bad-quotas: spec.state.defaultTTL: ttl_negative',
  'examples/invalid/quotas.yaml:12: Function/bad-quotas: spec.state.maxValueBytes: quota_negative',
  'examples/invalid/quotas.yaml:13: Function/bad-quotas: spec.state.maxKeys: quota_negative',
  'examples/invalid/registrycluster.yaml:7: RegistryCluster/even-registry: spec.replicas: replicas_odd',
  'examples/invalid/statesync.yaml:11: StateSync/bad-sync: spec.keyPrefix: statesync_key_prefix',
  'examples/invalid/statesync.yaml:12: StateSync/bad-sync: spec.syncPeriod: statesync_sync_period',
  'examples/invalid/statesync.yaml:13: StateSync/bad-sync: spec.recordTTL: statesync_record_ttl',
  'examples/invalid/sticky.yaml:12: Function/bad-sticky: spec.state.sticky.source: sticky_source',
  'examples/invalid/sticky.yaml:13: Function/bad-sticky: spec.state.sticky.name: sticky_name',
  'examples/invalid/sticky.yaml:27: Function/bad-cookie: spec.state.sticky.name: sticky_cookie_name',
  'examples/invalid/traffic.yaml:11: Function/bad-traffic: spec.traffic: traffic_sum',
  'examples/invalid/traffic.yaml:16: Function/bad-traffic: spec.traffic[1].revisionName: traffic_revision_conflict',
  'examples/invalid/traffic.yaml:18: Function/bad-traffic: spec.traffic[1].tag: tag_duplicate',
  'examples/invalid/traffic.yaml:19: Function/bad-traffic: spec.traffic[2]: traffic_revision_missing',
  'examples/invalid/traffic.yaml:20: Function/bad-traffic: spec.traffic[2].tag: tag_format',
  'examples/invalid/unknown-kind.yaml:2: Service/hello: apiVersion: api_version',
  'examples/invalid/unknown-kind.yaml:3: Service/hello: kind: unknown_kind',
];

const tmp = mkdtempSync(join(tmpdir(), 'orrery-validate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('orrery validate (real bin)', () => {
  it('accepts every example and does not descend into examples/invalid', { timeout: 60_000 }, () => {
    const r = orrery('validate', '-f', 'examples/');
    expect(r.stderr).not.toMatch(/problem/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK: \d+ document\(s\) in \d+ file\(s\) are valid\n$/);
    expect(r.stdout).not.toContain('invalid');
  });

  it('names every broken field of examples/invalid with its line, and nothing else', { timeout: 60_000 }, () => {
    const r = orrery('validate', '-f', 'examples/invalid/');
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/^[^:]+:\d+: [^ ]+\/[^ ]+: [^ ]+: [a-z0-9_]+ — ./);
    const prefixes = lines.map((l) => l.split(' — ')[0]);
    expect(prefixes.sort()).toEqual([...EXPECTED_INVALID].sort());
  });

  it('covers one invalid file per rule family', () => {
    const files = new Set(EXPECTED_INVALID.map((l) => l.split(':')[0]));
    expect([...files].sort()).toEqual(
      ['autoscaling', 'executor-environment', 'keyspace', 'quotas', 'registrycluster', 'statesync', 'sticky', 'traffic', 'unknown-kind'].map(
        (f) => `examples/invalid/${f}.yaml`,
      ),
    );
  });

  it('takes several -f flags, and a file directly', { timeout: 60_000 }, () => {
    const r = orrery('validate', '-f', 'examples/invalid/registrycluster.yaml', '-f', 'examples/counter/function.yaml');
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n').map((l) => l.split(' — ')[0])).toEqual([
      'examples/invalid/registrycluster.yaml:7: RegistryCluster/even-registry: spec.replicas: replicas_odd',
    ]);
  });

  it('reports YAML syntax errors and duplicate resources with their lines', { timeout: 60_000 }, () => {
    const dir = join(tmp, 'mixed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: orrery.dev/v1alpha1\nkind: Environment\nmetadata: {name: [oops\n');
    const env = 'apiVersion: orrery.dev/v1alpha1\nkind: Environment\nmetadata:\n  name: nodejs\nspec: {}\n';
    writeFileSync(join(dir, 'twice.yml'), `${env}---\n${env}`);
    const r = orrery('validate', '-f', dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/broken\.yaml:\d+: \?: <yaml>: yaml_syntax — /);
    expect(r.stdout).toContain(`${join(dir, 'twice.yml')}:10: Environment/nodejs: metadata.name: duplicate — `);
  });

  it('refuses a second Function declaring a keyspace an earlier one in the input declares, naming the owner', { timeout: 60_000 }, () => {
    const dir = join(tmp, 'keyspaces');
    mkdirSync(dir);
    const stateful = (name: string, state: string, namespace = 'shop') =>
      `apiVersion: orrery.dev/v1alpha1\nkind: Function\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  template:\n    source: {inline: x}\n  state: ${state}\n`;
    writeFileSync(join(dir, 'a.yaml'), `${stateful('cart-owner', '{keyspace: cart}')}---\n${stateful('cart', '{}', 'elsewhere')}`);
    // `cart` (keyspace = its name) and `thief` both come after cart-owner; `own` is its own.
    writeFileSync(join(dir, 'b.yaml'), `${stateful('thief', '{keyspace: cart}')}---\n${stateful('cart', '{}')}---\n${stateful('own', '{}')}`);
    const r = orrery('validate', '-f', join(dir, 'a.yaml'), '-f', join(dir, 'b.yaml'));
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(' — ')[0])).toEqual([
      `${join(dir, 'b.yaml')}:9: Function/thief: spec.state.keyspace: state_keyspace_taken`,
      `${join(dir, 'b.yaml')}:19: Function/cart: spec.state: state_keyspace_taken`,
    ]);
    for (const l of lines) expect(l).toContain('belongs to Function shop/cart-owner');
  });

  it('exits 2 on usage errors', { timeout: 60_000 }, () => {
    expect(orrery('validate').code).toBe(2);
    expect(orrery('validate', '-f', 'examples/no-such-dir').code).toBe(2);
    expect(orrery('validate', '--bogus').code).toBe(2);
  });
});
