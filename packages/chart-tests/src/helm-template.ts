/**
 * Renders charts/orrery with the real `helm template` (the helm that scripts/k8s-tools.sh builds):
 * values as a temporary file, a release name and namespace, and the Kubernetes version of the
 * test control plane. NOTES.txt, which `helm template` never prints, is rendered by the same
 * helm from a copy of the chart with one more template that includes it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { helmBin } from '@orrery/kube-testenv';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { chartDir } from './chart-files.ts';

/** What Capabilities.KubeVersion says: the version of the test control plane (scripts/k8s-versions.env). */
export const KUBE_VERSION = '1.37.2';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Rendered manifests are navigated loosely inside assertions; a wrong path fails the test anyway.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [key: string]: any;
}

export interface RenderedChart {
  objects: K8sObject[];
  /** Template file (`templates/x.yaml`) → its documents. */
  bySource: Map<string, K8sObject[]>;
}

export interface Release {
  name: string;
  namespace: string;
}

export const RELEASE: Release = { name: 'orrery', namespace: 'orrery-system' };

/** helm exited non-zero: its stderr says why (a `required` or `fail` message, a YAML error). */
export class HelmError extends Error {}

let helmHome: string | undefined;
let helmPath: string | undefined;
/** Runs helm with its cache and config in a temporary folder (nothing written to $HOME). */
export function runHelm(args: string[]): string {
  helmHome ??= mkdtempSync(join(tmpdir(), 'orrery-helm-'));
  helmPath ??= helmBin(); // asks scripts/k8s-tools.sh once, not per call
  try {
    return execFileSync(helmPath, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, HELM_CACHE_HOME: join(helmHome, 'cache'), HELM_CONFIG_HOME: join(helmHome, 'config'), HELM_DATA_HOME: join(helmHome, 'data') },
    });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new HelmError(`helm ${args.join(' ')}: ${[e.stdout, e.stderr].filter(Boolean).join('\n').trim() || e.message}`);
  }
}

/** A values file for helm in a fresh temporary folder; the caller removes the folder. */
function valuesFile(values: Record<string, unknown>): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-values-'));
  const file = join(dir, 'values.yaml');
  writeFileSync(file, stringify(values));
  return { file, dir };
}

/**
 * `helm template` output split into documents by their `# Source:` template, read as YAML 1.1 the
 * way helm and the API server read it (sigs.k8s.io/yaml): `defaultMode: 0440` is octal there.
 */
export function parseManifests(text: string): RenderedChart {
  const bySource = new Map<string, K8sObject[]>();
  const objects: K8sObject[] = [];
  for (const chunk of text.split(/^---[ \t]*$/m)) {
    const source = /^# Source: [^/\n]+\/(\S+)/m.exec(chunk)?.[1];
    if (!source) continue;
    for (const doc of parseAllDocuments(chunk, { version: '1.1' })) {
      if (doc.errors.length > 0) throw new Error(`helm rendered invalid YAML in ${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
      const obj = doc.toJS() as K8sObject | null;
      if (!obj) continue;
      objects.push(obj);
      bySource.set(source, [...(bySource.get(source) ?? []), obj]);
    }
  }
  return { objects, bySource };
}

/** `helm template` of the chart with these values (on top of values.yaml), parsed. */
export function helmTemplate(values: Record<string, unknown> = {}, release: Release = RELEASE, extraArgs: string[] = []): RenderedChart {
  const { file, dir } = valuesFile(values);
  try {
    return parseManifests(
      runHelm(['template', release.name, chartDir, '--namespace', release.namespace, '--kube-version', KUBE_VERSION, '--values', file, ...extraArgs]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** NOTES.txt as `helm install` would print it: helm renders it through an extra template in a copy of the chart. */
export function helmNotes(values: Record<string, unknown> = {}, release: Release = RELEASE): string {
  const copy = mkdtempSync(join(tmpdir(), 'orrery-chart-'));
  const { file, dir } = valuesFile(values);
  try {
    cpSync(chartDir, copy, { recursive: true });
    writeFileSync(join(copy, 'templates', 'zz-notes.yaml'), 'notes: |\n{{ include (print .Template.BasePath "/NOTES.txt") . | indent 2 }}\n');
    const out = runHelm([
      'template', release.name, copy, '--namespace', release.namespace, '--kube-version', KUBE_VERSION, '--values', file, '--show-only', 'templates/zz-notes.yaml',
    ]);
    return (parse(out) as { notes: string }).notes;
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
