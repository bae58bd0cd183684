/**
 * The Argo CD health check in docs/argocd/orrery.lua (one script for every orrery.dev kind), run by
 * Lua 5.1 (Argo CD's gopher-lua speaks that dialect; Debian's lua5.1, installed by
 * scripts/services.sh) against statuses recorded from the operator (docs/argocd/fixtures/*.json,
 * each with the verdict it must get), and the argocd-cm snippet in docs/operations.md holding
 * exactly this script.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from './chart-files.ts';

const dir = join(repoRoot, 'docs', 'argocd');
const scratch = mkdtempSync(join(tmpdir(), 'orrery-argocd-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Fixture {
  file: string;
  description: string;
  source: string;
  argocd: string;
  kstatus: string;
  object: { kind: string; metadata: { name: string; generation?: number }; status?: unknown };
}
const fixtures: Fixture[] = readdirSync(join(dir, 'fixtures'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, 'fixtures', file), 'utf8')) as Omit<Fixture, 'file'>) }));
const script = readFileSync(join(dir, 'orrery.lua'), 'utf8');

/** Lua 5.1 string literal: decimal escapes for anything outside printable ASCII (5.1 has no \u). */
function luaString(s: string): string {
  let out = '"';
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte === 0x22 || byte === 0x5c ? `\\${ch}` : byte >= 0x20 && byte < 0x7f ? ch : `\\${byte}`;
  }
  return `${out}"`;
}

/** A JSON value as a Lua table constructor, the shape Argo CD hands a script as `obj`. */
function luaValue(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return luaString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `{${v.map(luaValue).join(', ')}}`;
  return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `[${luaString(k)}] = ${luaValue(x)}`).join(', ')}}`;
}

/** Runs a health script the way Argo CD does: `obj` set, the script's returned table read. */
function health(script: string, obj: unknown): { status: string; message: string } {
  const file = join(scratch, 'check.lua');
  writeFileSync(file, `obj = ${luaValue(obj)}\nlocal hs = (function()\n${script}\nend)()\nio.write(hs.status, "\\n", hs.message or "")\n`);
  const [status, ...message] = execFileSync('lua5.1', [file], { encoding: 'utf8' }).split('\n');
  return { status: status!, message: message.join('\n') };
}

/** Every kind the chart installs a CRD for (Function, Revision, …): each needs a health check. */
const kinds = readdirSync(join(repoRoot, 'charts', 'orrery', 'crds'))
  .filter((f) => f.endsWith('.orrery.dev.yaml'))
  .map((f) => (parse(readFileSync(join(repoRoot, 'charts', 'orrery', 'crds', f), 'utf8')) as { spec: { names: { kind: string } } }).spec.names.kind)
  .sort();

describe('Argo CD health checks (docs/argocd)', () => {
  it('every Orrery kind has a rule in the script and recorded statuses', () => {
    expect(kinds.length).toBeGreaterThanOrEqual(5);
    for (const kind of kinds) {
      expect(script, `docs/argocd/orrery.lua: function rules.${kind}()`).toContain(`function rules.${kind}()`);
      expect(fixtures.some((f) => f.object.kind === kind), `a fixture for ${kind}`).toBe(true);
    }
  });

  it('a kind without a rule is Unknown, and says so', () => {
    expect(health(script, { kind: 'Gadget', metadata: { name: 'x' } })).toEqual({ status: 'Unknown', message: 'No Orrery health rule for kind Gadget' });
  });

  for (const f of fixtures) {
    it(`${f.file}: ${f.description} → ${f.argocd}`, () => {
      const hs = health(script, f.object);
      expect(hs.status).toBe(f.argocd);
      expect(hs.message).not.toBe('');
    });
  }

  it('the Function script covers rollout, lagging generation, failure and readiness with recorded statuses', () => {
    const fn = fixtures.filter((f) => f.object.kind === 'Function');
    for (const verdict of ['Progressing', 'Healthy', 'Degraded']) expect(fn.map((f) => f.argocd)).toContain(verdict);
    expect(fn.some((f) => f.argocd === 'Progressing' && (f.object.status as { observedGeneration?: number }).observedGeneration! < f.object.metadata.generation!)).toBe(true);
  });

  it('no status yet and a spec change the operator has not seen are Progressing, whatever the old conditions say', () => {
    for (const kind of kinds) {
      expect(health(script, { kind, metadata: { name: 'x', generation: 1 } }).status, kind).toBe('Progressing');
      if (kind === 'Revision') continue; // immutable: its generation never moves
      const healthy = fixtures.find((f) => f.object.kind === kind && f.argocd === 'Healthy');
      expect(healthy, `a Healthy fixture for ${kind}`).toBeDefined();
      const lagging = { ...healthy!.object, metadata: { ...healthy!.object.metadata, generation: (healthy!.object.metadata.generation ?? 1) + 1 } };
      expect(health(script, lagging), kind).toMatchObject({ status: 'Progressing', message: expect.stringContaining('not yet observed') });
    }
  });

  it('docs/operations.md shows the script, verbatim, in the argocd-cm snippet for every orrery.dev kind', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'operations.md'), 'utf8');
    const block = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('name: argocd-cm'));
    expect(block, 'a ```yaml block with the argocd-cm ConfigMap').toBeDefined();
    const data = (parse(block!) as { data: Record<string, string> }).data;
    // The wildcard works only in the resource.customizations key (a ConfigMap key cannot hold `*`).
    const customizations = parse(data['resource.customizations']!) as Record<string, { 'health.lua'?: string }>;
    expect(customizations['orrery.dev/*']?.['health.lua']).toBe(script);
  });
});
