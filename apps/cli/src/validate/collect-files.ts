import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MANIFEST = /\.ya?ml$/i;

/**
 * The manifest files named by `-f` arguments. A file is taken as given; a directory is walked
 * recursively for .yaml/.yml, skipping hidden folders, node_modules, and folders named
 * `invalid` (deliberately broken examples) unless such a folder is itself an argument.
 */
export function collectFiles(args: readonly string[]): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  for (const arg of args) {
    let stat;
    try {
      stat = statSync(arg);
    } catch {
      missing.push(arg);
      continue;
    }
    if (stat.isDirectory()) walk(arg, files);
    else files.push(arg);
  }
  return { files: [...new Set(files)], missing };
}

function walk(dir: string, out: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'invalid') continue;
      walk(path, out);
    } else if (entry.isFile() && MANIFEST.test(entry.name)) out.push(path);
  }
}
