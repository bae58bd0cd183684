/**
 * Renders charts/orrery with the subset renderer, the way `helm template` would for the chart's
 * own templates: values.yaml merged with overrides, .Release / .Chart / .Values as the root.
 */
import { parse } from 'yaml';
import { chartTemplates, readChartFile } from './chart-files.ts';
import { parseTemplate, Renderer } from './template-render.ts';

export interface RenderedChart {
  /** Template file name → rendered text (partials starting with "_" are not rendered). */
  files: Map<string, string>;
  values: Record<string, unknown>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Helm's values merge: maps merge key by key, everything else is replaced. */
export function mergeValues(base: Record<string, unknown>, override: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeValues(current, value) : value;
  }
  return out;
}

export function renderChart(overrides: Record<string, unknown> = {}, release = { name: 'orrery', namespace: 'orrery-system' }): RenderedChart {
  const chart = parse(readChartFile('Chart.yaml')) as { name: string; version: string; appVersion: string };
  const values = mergeValues(parse(readChartFile('values.yaml')) as Record<string, unknown>, overrides);
  const templates = chartTemplates();
  const parsed = templates.map((t) => ({ name: t.name, ...parseTemplate(t.text) }));
  const defines = new Map(parsed.flatMap((p) => [...p.defines]));
  const renderer = new Renderer({ defines });
  const root = {
    Values: values,
    Release: { Name: release.name, Namespace: release.namespace, Service: 'Helm', IsInstall: true, IsUpgrade: false },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: String(chart.appVersion) },
    Capabilities: { KubeVersion: { Version: 'v1.30.0' } },
  };
  const files = new Map<string, string>();
  for (const p of parsed) {
    if (p.name.startsWith('_')) continue;
    files.set(p.name, renderer.renderRoot(p.nodes, root));
  }
  return { files, values };
}
