import { GROUP_VERSION } from '../meta.ts';
import { isResourceKind, RESOURCE_KINDS, type ResourceKind } from '../resource.ts';
import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import type { ValidationError } from './types.ts';

/** apiVersion and kind: decides which schema the rest of the document is checked against. */
export function checkEnvelope(obj: unknown): { kind?: ResourceKind; errors: ValidationError[] } {
  if (!isRecord(obj)) return { errors: [{ path: '', reason: 'not_object', message: REASONS.not_object }] };
  const errors: ValidationError[] = [];
  if (obj.apiVersion !== GROUP_VERSION) {
    const got = obj.apiVersion === undefined ? 'missing' : JSON.stringify(obj.apiVersion);
    errors.push({ path: 'apiVersion', reason: 'api_version', message: `apiVersion is ${got}: ${REASONS.api_version}` });
  }
  if (!isResourceKind(obj.kind)) {
    const got = obj.kind === undefined ? 'missing' : JSON.stringify(obj.kind);
    errors.push({
      path: 'kind',
      reason: 'unknown_kind',
      message: `kind is ${got}: kind must be one of ${RESOURCE_KINDS.join(', ')}`,
    });
    return { errors };
  }
  return { kind: obj.kind, errors };
}
