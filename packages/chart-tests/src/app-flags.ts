/**
 * The command-line flags an app's `parseArgs` accepts, read from its source. The chart passes
 * flags to apps whose parsers are strict (an unknown flag exits 2), so a test checks every
 * rendered `--flag` against this list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './chart-files.ts';

export function declaredFlags(sourceText: string): Set<string> {
  const flags = new Set<string>();
  // One option per line, or several on one line (`options: { host: { type: 'string' }, port: … }`).
  for (const m of sourceText.matchAll(/(?:^|[{,])\s*'?([a-z][a-z0-9-]*)'?:\s*\{\s*type:\s*'(?:string|boolean)'/gm)) flags.add(m[1]!);
  return flags;
}

export function appFlags(relativeSource: string): Set<string> {
  return declaredFlags(readFileSync(join(repoRoot, relativeSource), 'utf8'));
}

/** `--name=value` / `--name` → name; anything else (a positional) → undefined. */
export function flagName(arg: string): string | undefined {
  return arg.match(/^--([a-z][a-z0-9-]*)(=|$)/)?.[1];
}
