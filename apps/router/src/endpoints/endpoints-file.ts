/**
 * `--endpoints-file`: a YAML list of `{namespace, function, revision, address, ready}`,
 * reloaded on change (JSON, as the local operator writes it, is YAML too). An invalid file keeps
 * the last good list.
 */
import { parse } from 'yaml';
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import { watchTextFile } from '../watched-file.ts';
import type { EndpointSource } from './endpoint-source.ts';

/** JSON when it is (the local operator writes JSON, which is YAML), else YAML: JSON.parse is many times faster. */
function parseDocument(text: string): unknown {
  if (text.trimStart().startsWith('[')) {
    try {
      return JSON.parse(text);
    } catch {
      // a YAML flow sequence that is not JSON
    }
  }
  return parse(text);
}

export function parseEndpointsYaml(text: string): EndpointRecord[] {
  const doc: unknown = parseDocument(text);
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc)) throw new Error('endpoints file must be a YAML list of {namespace, function, revision, address, ready}');
  return doc.map((raw: unknown, i): EndpointRecord => {
    const e = raw as Partial<Record<keyof EndpointRecord, unknown>>;
    for (const f of ['namespace', 'function', 'revision', 'address'] as const) {
      if (typeof e?.[f] !== 'string' || e[f] === '') throw new Error(`endpoints[${i}].${f} must be a non-empty string`);
    }
    if (!/^(\[[^\]]+\]|[^\s:]+):\d+$/.test(e.address as string)) throw new Error(`endpoints[${i}].address must be "host:port"`);
    return { namespace: e.namespace as string, function: e.function as string, revision: e.revision as string, address: e.address as string, ready: e.ready === undefined ? true : e.ready === true };
  });
}

export async function watchEndpointsFile(path: string, onRecords: (r: EndpointRecord[]) => void, onError: (err: unknown) => void): Promise<EndpointSource> {
  const w = await watchTextFile(
    path,
    (text) => {
      try {
        onRecords(parseEndpointsYaml(text));
      } catch (err) {
        onError(err);
      }
    },
    onError,
  );
  return { stop: async () => w.stop() };
}
