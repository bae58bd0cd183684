import { auditLog, type Connection } from '@orrery/db';
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

/** Appends one audit row; input is redacted here so no caller can forget. */
export async function writeAudit(conn: Connection, e: AuditEntry): Promise<void> {
  await conn.db.insert(auditLog).values({
    who: e.who,
    role: e.role,
    action: e.action,
    target: e.target,
    input: e.input === undefined ? null : redactInput(e.input),
    result: e.result,
    error: e.error ?? null,
    before: e.before ?? null,
    after: e.after ?? null,
    ...(e.at ? { at: e.at } : {}),
  });
}
