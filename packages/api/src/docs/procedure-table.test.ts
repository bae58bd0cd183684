import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeProcedures } from '../describe-procedures.ts';
import { appRouter } from '../routers/_app.ts';
import { API_DOC_PATH, renderProcedureTable } from './procedure-table.ts';

describe('procedure metadata and docs/api.md', () => {
  it('every mutation is audited and needs a role; every procedure has a summary', () => {
    const procs = describeProcedures(appRouter);
    expect(procs.length).toBeGreaterThan(20);
    for (const p of procs) {
      expect(p.summary, p.path).not.toBe('');
      if (p.type === 'mutation') expect(p.audit, p.path).toBe(p.path);
    }
    expect(procs.filter((p) => p.role === 'public').map((p) => p.path)).toEqual(['auth.login', 'auth.permissions', 'auth.whoami']);
  });
  it('docs/api.md holds the current table (regenerate: npx tsx packages/api/scripts/gen-docs.ts)', () => {
    expect(readFileSync(API_DOC_PATH, 'utf8')).toContain(renderProcedureTable());
  });
});
