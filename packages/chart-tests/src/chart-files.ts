/** Locations of the chart and the Dockerfiles, relative to this package. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const chartDir = join(repoRoot, 'charts', 'orrery');

export function readChartFile(relative: string): string {
  return readFileSync(join(chartDir, relative), 'utf8');
}

export interface ChartTemplate {
  name: string;
  text: string;
}

/** Every file under templates/ (.yaml, .tpl, NOTES.txt), sorted by name. */
export function chartTemplates(): ChartTemplate[] {
  return readdirSync(join(chartDir, 'templates'))
    .filter((name) => /\.(ya?ml|tpl|txt)$/.test(name))
    .sort()
    .map((name) => ({ name, text: readChartFile(join('templates', name)) }));
}
