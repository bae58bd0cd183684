import { FUNCTION_LABEL } from '../kinds/revision.ts';
import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import { FUNCTION_NAME_ROOM, REVISION_NAME } from './rules/name-rules.ts';
import type { ValidationError } from './types.ts';

/** A Revision belongs to one Function: name `<function>-NNNNN` and the function label agree. */
export function checkRevisionOwner(rev: Record<string, unknown>): ValidationError[] {
  const spec = isRecord(rev.spec) ? rev.spec : {};
  const metadata = isRecord(rev.metadata) ? rev.metadata : {};
  const fn = spec.function;
  if (typeof fn !== 'string' || fn === '') return [];
  const errors: ValidationError[] = [];
  const name = metadata.name;
  if (typeof name === 'string' && !REVISION_NAME.holds(rev)) {
    errors.push({ path: 'metadata.name', reason: 'revision_name', message: `"${name}" should look like "${fn}-00001": ${REASONS.revision_name}` });
  }
  const labels = isRecord(metadata.labels) ? metadata.labels : {};
  const label = labels[FUNCTION_LABEL];
  if (label !== undefined && label !== fn) {
    errors.push({ path: `metadata.labels["${FUNCTION_LABEL}"]`, reason: 'revision_label', message: REASONS.revision_label });
  }
  return errors;
}

/** Revision names append `-NNNNN` (6 characters) and must stay within 63. */
export function checkFunctionNameRoom(fn: Record<string, unknown>): ValidationError[] {
  const name = isRecord(fn.metadata) ? fn.metadata.name : undefined;
  if (typeof name !== 'string' || FUNCTION_NAME_ROOM.holds(fn)) return []; // > 63 is name_too_long
  return [{ path: 'metadata.name', reason: 'function_name_too_long', message: REASONS.function_name_too_long }];
}
