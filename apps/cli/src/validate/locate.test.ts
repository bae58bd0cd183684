import { describe, expect, it } from 'vitest';
import { LineCounter, parseAllDocuments, type Document } from 'yaml';
import { lineOf } from './locate.ts';

const text = `# comment
apiVersion: orrery.dev/v1alpha1
kind: Function
metadata:
  name: demo
spec:
  traffic:
    - revisionName: demo-00001
      percent: 90
    - latestRevision: true
      percent: 10
---
kind: Environment
spec:
  poolSize: -1
`;

describe('lineOf', () => {
  const lines = new LineCounter();
  const [first, second] = parseAllDocuments(text, { lineCounter: lines }) as Document[];
  it.each([
    [[], 2],
    [['spec', 'traffic'], 7],
    [['spec', 'traffic', 1], 10],
    [['spec', 'traffic', 1, 'percent'], 11],
    [['spec', 'traffic', 0, 'revisionName'], 8],
    [['spec', 'state', 'keyspace'], 6], // missing: nearest existing parent
    [['metadata', 'labels'], 4],
  ] as const)('%j → line %i in the first document', (path, line) => {
    expect(lineOf(first!, path, lines)).toBe(line);
  });
  it('counts lines across documents', () => {
    expect(lineOf(second!, ['spec', 'poolSize'], lines)).toBe(15);
  });
});
