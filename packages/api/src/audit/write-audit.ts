import { auditLog, type Connection } from '@orrery/db';
import { AUDIT_ERROR_MAX_CHARS, capAuditInput, capText } from './audit-input-cap.ts';
import { redactInput } from './redact.ts';

export interface AuditEntry {
  who: string;
  role: string;
  action: string;
  target: string;
  input: unknown;
  result: 'ok' | 'error';
  error?: string;
  before?: unknown;
  after?: unknown;
  at?: Date;
}

/**
 * Appends one audit row. Input is redacted and capped here (audit-input-cap.ts) so no caller can
 * forget: a row holds a few KB at most whatever the caller sent.
 */
export async function writeAudit(conn: Connection, e: AuditEntry): Promise<void> {
  await conn.db.insert(auditLog).values({
    who: capText(e.who, 200),
    role: capText(e.role, 32),
    action: capText(e.action, 200),
    target: capText(e.target),
    input: e.input === undefined ? null : capAuditInput(redactInput(e.input)),
    result: e.result,
    error: e.error === undefined ? null : capText(e.error, AUDIT_ERROR_MAX_CHARS),
    before: e.before === undefined ? null : capAuditInput(redactInput(e.before)),
    after: e.after === undefined ? null : capAuditInput(redactInput(e.after)),
    ...(e.at ? { at: e.at } : {}),
  });
}
