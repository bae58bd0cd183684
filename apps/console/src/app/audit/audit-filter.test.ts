import { describe, expect, it } from 'vitest';
import { auditFilterFromParams, auditListInput, paramsFromAuditFilter } from './audit-filter.ts';

describe('audit filters', () => {
  it('round-trips through the URL, leaving defaults out', () => {
    const f = auditFilterFromParams(new URLSearchParams('who=olga&action=registry.&result=error&limit=100'));
    expect(f).toEqual({ who: 'olga', action: 'registry.', target: '', result: 'error', from: '', to: '', limit: 100 });
    expect(paramsFromAuditFilter(f).toString()).toBe('who=olga&action=registry.&result=error&limit=100');
    expect(paramsFromAuditFilter(auditFilterFromParams(new URLSearchParams())).toString()).toBe('');
  });
  it('ignores an unknown result and an out-of-range limit', () => {
    expect(auditFilterFromParams(new URLSearchParams('result=maybe&limit=9999'))).toMatchObject({ result: '', limit: 50 });
  });
  it('builds audit.list input: blanks omitted, text trimmed, local times as ISO instants', () => {
    const input = auditListInput({ who: ' ', action: ' functions.rollback ', target: '', result: 'ok', from: '2026-11-30T12:00', to: 'nonsense', limit: 50 }, 42);
    expect(input).toEqual({ who: undefined, action: 'functions.rollback', target: undefined, result: 'ok', from: new Date('2026-11-30T12:00').toISOString(), to: undefined, cursor: 42, limit: 50 });
  });
});
