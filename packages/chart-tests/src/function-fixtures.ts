/**
 * The Functions the chart tests deploy (install, upgrade, backup/restore), and a request through
 * the router. The counter and the greeter run on one worker that stays up (deploy executor,
 * minScale = maxScale = 1): no scale to zero or autoscaling mid-test, so a pod that went away was
 * replaced by something else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from './chart-files.ts';
import { GV, type Obj } from './release-under-test.ts';

const ONE_WORKER = { minScale: 1, maxScale: 1 };

/** examples/counter (keyed state with compare-and-swap: POST ?key= increments, GET reads) on the deploy executor. */
export function statefulCounter(namespace: string, name: string): Obj {
  const example = parse(readFileSync(join(repoRoot, 'examples', 'counter', 'function.yaml'), 'utf8')) as Obj;
  // Without onWorkerLoss: helm-upgrade applies this Function to the previous chart, whose CRD does
  // not declare the field (a Function written for that version); with one worker that stays up,
  // replay would have nothing to do here anyway.
  const { onWorkerLoss: _newerField, ...template } = example.spec!.template as Record<string, unknown>;
  return {
    apiVersion: GV,
    kind: 'Function',
    metadata: { name, namespace },
    spec: { ...example.spec, template: { ...template, executor: 'deploy', autoscaling: { ...(template.autoscaling as object), ...ONE_WORKER } } },
  };
}

/** A Function of the `nodejs` Environment on the deploy executor, its handler the module `source`. */
export function inlineFunction(namespace: string, name: string, source: string): Obj {
  return { apiVersion: GV, kind: 'Function', metadata: { name, namespace }, spec: { template: { environment: 'nodejs', executor: 'deploy', source: { inline: source } } } };
}

/** Answers `{ greeting }` to every request. */
export function greeter(namespace: string, name: string, greeting: string): Obj {
  return {
    apiVersion: GV,
    kind: 'Function',
    metadata: { name, namespace },
    spec: { template: { environment: 'nodejs', executor: 'deploy', autoscaling: { metric: 'concurrency', target: 10, ...ONE_WORKER }, source: { inline: `export default () => Response.json({ greeting: ${JSON.stringify(greeting)} })` } } },
  };
}

/** A request to `/<namespace>/<fn>/<query>` through the router; the body parsed as JSON when it is. */
export async function callFunction(base: string, namespace: string, fn: string, init: RequestInit & { query?: string } = {}): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const res = await fetch(`${base}/${namespace}/${fn}/${init.query ?? ''}`, { ...init, signal: init.signal ?? AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = {};
  }
  return { status: res.status, body, text };
}
