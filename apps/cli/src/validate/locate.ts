import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

/**
 * The 1-based line of a JSON path inside a parsed YAML document: the line of the key for a
 * mapping entry, of the item for a sequence entry. A path that does not exist (a required
 * field that is missing) resolves to its nearest existing parent.
 */
export function lineOf(doc: Document, segments: ReadonlyArray<string | number>, lines: LineCounter): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? doc.range?.[0] ?? 0;
  for (const seg of segments) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (item === undefined) break;
      offset = rangeStart(item) ?? offset;
      node = item;
    } else break;
  }
  return lines.linePos(offset).line;
}

function rangeStart(node: unknown): number | undefined {
  return (node as Node | null | undefined)?.range?.[0];
}
