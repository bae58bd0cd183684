/**
 * Applies the repository's examples through the store: every manifest under `examples/`
 * except the deliberately broken ones in `examples/invalid/` and the opt-in folders
 * (OPT_IN_EXAMPLES) not asked for. Revision manifests are replayed before their Function (see
 * replayRevision), so a Function that routes to a named revision (canary) finds it holding the
 * template the manifest says.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ResourceStore } from '@orrery/store';

export interface Manifest {
  file: string;
  object: { kind?: string; metadata?: { name?: string } } & Record<string, unknown>;
}

const KIND_ORDER = ['Environment', 'Revision', 'Function', 'RegistryCluster', 'StateSync'];

/**
 * Folders applied only when asked (`orrery up --python-examples`): the Python twins of counter and
 * canary start python3 workers, which the default platform (and every test that starts it) need not pay for.
 */
export const OPT_IN_EXAMPLES: readonly string[] = ['python'];

export function collectExampleManifests(dir: string, include: readonly string[] = []): Manifest[] {
  const out: Manifest[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d).sort()) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) {
        if (entry !== 'invalid' && (!OPT_IN_EXAMPLES.includes(entry) || include.includes(entry))) walk(path);
      } else if (/\.ya?ml$/.test(entry)) {
        for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
          const object: unknown = doc.toJS();
          if (object && typeof object === 'object') out.push({ file: relative(dir, path), object: object as Manifest['object'] });
        }
      }
    }
  };
  walk(dir);
  const rank = (m: Manifest) => {
    const i = KIND_ORDER.indexOf(m.object.kind ?? '');
    return i < 0 ? KIND_ORDER.length : i;
  };
  return out.sort((a, b) => rank(a) - rank(b) || (a.object.metadata?.name ?? '').localeCompare(b.object.metadata?.name ?? ''));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Obj = Manifest['object'] & { metadata?: { name?: string; namespace?: string }; spec?: Record<string, unknown> };

/**
 * Revisions are the operator's to create (it deletes revisions whose Function does not exist
 * yet and numbers new ones itself), so a Revision manifest is replayed as history: its
 * Function is applied with that revision's template and the operator snapshots it under the
 * same name. Revisions that already exist (a restart) are left alone.
 */
async function replayRevision(store: ResourceStore, rev: Obj, functions: Obj[], say: (line: string) => void): Promise<void> {
  const ns = rev.metadata?.namespace ?? 'default';
  const name = rev.metadata?.name ?? '';
  if (await store.get('Revision', ns, name)) return;
  const fnName = rev.spec?.function as string | undefined;
  const fn = functions.find((f) => f.metadata?.name === fnName && (f.metadata?.namespace ?? 'default') === ns);
  if (!fn) {
    await store.apply(rev, { allowCreateOnlyKinds: true });
    return;
  }
  await store.apply({ ...fn, spec: { ...fn.spec, template: rev.spec?.template } });
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    if (await store.get('Revision', ns, name)) return;
    await sleep(100);
  }
  say(`  ! the operator did not create ${ns}/${name} within 30 s (is it running?)`);
}

export async function applyExamples(store: ResourceStore, dir: string, say: (line: string) => void, include: readonly string[] = []): Promise<{ applied: number; failed: number }> {
  let applied = 0;
  let failed = 0;
  const manifests = collectExampleManifests(dir, include);
  const functions = manifests.filter((m) => m.object.kind === 'Function').map((m) => m.object as Obj);
  // Environments, then Revisions (oldest first), then Functions and the rest.
  for (const m of manifests) {
    const what = `${m.object.kind}/${m.object.metadata?.name} (${m.file})`;
    try {
      if (m.object.kind === 'Revision') await replayRevision(store, m.object, functions, say);
      else await store.apply(m.object);
      applied++;
    } catch (err) {
      failed++;
      say(`  ! could not apply ${what}: ${(err as Error).message}`);
    }
  }
  return { applied, failed };
}
