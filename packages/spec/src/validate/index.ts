import { KIND_SCHEMAS, type Resource } from '../resource.ts';
import { checkEnvelope } from './envelope.ts';
import { isRecord } from './path.ts';
import { checkFunctionNameRoom, checkRevisionOwner } from './revision.ts';
import { issuesToErrors } from './schema-issues.ts';
import { checkStatePlacement } from './state.ts';
import { checkStateSync } from './state-sync.ts';
import { checkTemplate } from './template.ts';
import { checkTraffic } from './traffic.ts';
import { checkDomains } from './domains.ts';
import type { ValidationError, ValidationLookup } from './types.ts';
import { checkUnknownFields } from './unknown-fields.ts';

export { effectiveTraffic } from './traffic.ts';
export { keyspaceTakenMessage } from './state.ts';
export {
  type DeclaredKeyspace,
  type KeyspaceClaim,
  claimOf,
  compareClaims,
  declaredKeyspace,
  declaresNewKeyspace,
  keyspaceHeldBy,
  keyspaceOwner,
  rivalClaims,
} from './keyspace-owner.ts';
export { type DomainClaim, type DomainHolder, compareDomainClaims, domainClaimsOf, domainHolders } from './domain-claims.ts';
export { formatPath, parsePath } from './path.ts';
export { REASONS, type Reason } from './reasons.ts';
export type { ValidationError, ValidationLookup } from './types.ts';

/**
 * Every problem in one resource, in document order of the rule families: envelope, field
 * rules (the schema), unknown fields, then cross-field rules. The admission webhook, the CLI
 * and the API all call this, so a manifest is judged the same everywhere.
 */
export function validate(obj: unknown, lookup?: ValidationLookup): ValidationError[] {
  const envelope = checkEnvelope(obj);
  if (!envelope.kind || !isRecord(obj)) return envelope.errors;
  const kind = envelope.kind;
  const errors = [...envelope.errors];

  const parsed = KIND_SCHEMAS[kind].safeParse(obj);
  if (!parsed.success) {
    const own = new Set(['apiVersion', 'kind']);
    errors.push(...issuesToErrors(parsed.error.issues, obj).filter((e) => !own.has(e.path)));
  }
  errors.push(...checkUnknownFields(kind, obj));

  const spec = isRecord(obj.spec) ? obj.spec : {};
  const metadata = isRecord(obj.metadata) ? obj.metadata : {};
  switch (kind) {
    case 'Function':
      errors.push(...checkFunctionNameRoom(obj));
      errors.push(...checkTemplate(spec.template, 'spec.template'));
      errors.push(...checkTraffic(metadata.name, spec.traffic));
      errors.push(...checkStatePlacement(obj, lookup));
      errors.push(...checkDomains(spec.domains));
      break;
    case 'Revision':
      errors.push(...checkTemplate(spec.template, 'spec.template'));
      errors.push(...checkRevisionOwner(obj));
      break;
    case 'StateSync':
      errors.push(...checkStateSync(obj));
      break;
    case 'Environment':
    case 'RegistryCluster':
      break; // field rules only (poolSize; replicas ≥ 1 and odd)
  }
  return dedupe(errors);
}

function dedupe(errors: ValidationError[]): ValidationError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}\u0000${e.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type ParseResult = { ok: true; resource: Resource } | { ok: false; errors: ValidationError[] };

/** Validate, then parse with defaults applied: the typed resource, or every error. */
export function parseResource(obj: unknown, lookup?: ValidationLookup): ParseResult {
  const errors = validate(obj, lookup);
  if (errors.length > 0) return { ok: false, errors };
  const envelope = checkEnvelope(obj);
  const parsed = KIND_SCHEMAS[envelope.kind!].safeParse(obj);
  if (!parsed.success) return { ok: false, errors: issuesToErrors(parsed.error.issues, obj) };
  return { ok: true, resource: parsed.data };
}
