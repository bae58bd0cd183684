/**
 * The environment variables an app reads, from its source and the sources of the workspace
 * packages it depends on (transitively). A chart that sets a variable nobody reads is wiring
 * that does nothing — the console once got DATABASE_URL while it only reads ORRERY_API_URL.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './chart-files.ts';

/**
 * packages/log's and packages/tracing's settings functions take the environment as an argument, so
 * their reads are not `process.env.X`: an app that hands them process.env reads these.
 */
const READS_THROUGH_LOG_SETTINGS: Array<[RegExp, string]> = [
  [/resolveLogLevel\([^()]*(?:process\.env|\benvironment)\s*\)/, 'ORRERY_LOG_LEVEL'],
  [/resolveLogFormat\(\s*(?:process\.env|environment)\b/, 'ORRERY_LOG_FORMAT'],
  // @orrery/tracing's settings (docs/tracing.md): the endpoint the chart's tracing.otlpEndpoint sets.
  [/resolveTraceSettings\([^()]*(?:process\.env|\benvironment)\b/, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
  // The operator's resolveObservability (observability-from-flags.ts) hands the same env to all three.
  [/resolveObservability\([^()]*process\.env\b/, 'ORRERY_LOG_LEVEL'],
  [/resolveObservability\([^()]*process\.env\b/, 'ORRERY_LOG_FORMAT'],
  [/resolveObservability\([^()]*process\.env\b/, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
];

export function envReads(sourceText: string): Set<string> {
  const names = new Set<string>();
  // `environment` is what a config reader that takes the environment as a parameter calls it
  // (the router's wiring/router-config.ts: readRouterConfig(argv, process.env)).
  for (const m of sourceText.matchAll(/(?:process\.env|\benvironment)(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) names.add((m[1] ?? m[2])!);
  for (const [call, name] of READS_THROUGH_LOG_SETTINGS) if (call.test(sourceText)) names.add(name);
  return names;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mjs|js)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Workspace package name → its directory (packages/*). */
function workspacePackages(): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(repoRoot, 'packages'))) {
    const manifest = join(repoRoot, 'packages', name, 'package.json');
    if (existsSync(manifest)) out.set((JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name, join(repoRoot, 'packages', name));
  }
  return out;
}

/** Variables read by the app in `apps/<app>` (src/ and bin/) and every workspace package it uses. */
export function appEnvReads(app: string): Set<string> {
  const packages = workspacePackages();
  const dirs = [join(repoRoot, 'apps', app)];
  const seen = new Set(dirs);
  const names = new Set<string>();
  while (dirs.length) {
    const dir = dirs.pop()!;
    for (const sub of ['src', 'bin']) for (const file of sourceFiles(join(dir, sub))) for (const n of envReads(readFileSync(file, 'utf8'))) names.add(n);
    const deps = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
    for (const dep of Object.keys(deps)) {
      const depDir = packages.get(dep);
      if (depDir && !seen.has(depDir)) {
        seen.add(depDir);
        dirs.push(depDir);
      }
    }
  }
  return names;
}
