/**
 * `--routes-file`: multi-document YAML of Function and Revision resources as @orrery/spec
 * defines them. Validated with the spec's schemas on load (never on the request path);
 * an invalid file keeps the last good table and reports why.
 */
import { parseAllDocuments } from 'yaml';
import { FunctionSchema, RevisionSchema, type OrreryFunction, type Revision } from '@orrery/spec';
import { compileRoutes, type RouteTable } from './route-table.ts';
import { watchTextFile, type WatchedFile } from '../watched-file.ts';

export interface RouteSource {
  stop(): void;
}

export function parseRoutesYaml(text: string): RouteTable {
  const functions: OrreryFunction[] = [];
  const revisions: Revision[] = [];
  const docs = parseAllDocuments(text);
  for (const [i, doc] of docs.entries()) {
    if (doc.errors.length > 0) throw new Error(`routes document ${i + 1}: ${doc.errors[0]!.message}`);
    const obj: unknown = doc.toJS();
    if (obj === null || obj === undefined) continue;
    const kind = (obj as { kind?: unknown }).kind;
    if (kind === 'Function') {
      const r = FunctionSchema.safeParse(obj);
      if (!r.success) throw new Error(`routes document ${i + 1} (Function): ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
      functions.push(r.data);
    } else if (kind === 'Revision') {
      const r = RevisionSchema.safeParse(obj);
      if (!r.success) throw new Error(`routes document ${i + 1} (Revision): ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
      revisions.push(r.data);
    } else {
      throw new Error(`routes document ${i + 1}: kind must be Function or Revision, got ${JSON.stringify(kind)}`);
    }
  }
  return compileRoutes(functions, revisions);
}

export async function watchRoutesFile(path: string, onTable: (t: RouteTable) => void, onError: (err: unknown) => void): Promise<RouteSource> {
  const w: WatchedFile = await watchTextFile(
    path,
    (text) => {
      try {
        onTable(parseRoutesYaml(text));
      } catch (err) {
        onError(err);
      }
    },
    onError,
  );
  return { stop: () => w.stop() };
}
