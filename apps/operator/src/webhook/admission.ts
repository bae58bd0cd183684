import { isDeepStrictEqual } from 'node:util';
import { API_GROUP, type ValidationError, type ValidationLookup, isResourceKind, parseResource, validate } from '@orrery/spec';
import { defaultsPatch } from './json-patch.ts';

/** The parts of an AdmissionReview v1 request the webhook reads. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  namespace?: string;
  name?: string;
  object?: unknown;
  oldObject?: unknown;
  subResource?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason: string; message: string; details?: { causes: Array<{ field: string; reason: string; message: string }> } };
  patchType?: 'JSONPatch';
  /** base64 of the JSON Patch. */
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReviewOut {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

export class BadReviewError extends Error {
  readonly code = 'bad_admission_review';
}

/** Checks the envelope; throws BadReviewError with a message saying what is wrong. */
export function parseReview(body: unknown): AdmissionRequest {
  const b = body as { apiVersion?: unknown; kind?: unknown; request?: Partial<AdmissionRequest> } | null;
  if (!b || typeof b !== 'object') throw new BadReviewError('body must be a JSON AdmissionReview object');
  if (b.apiVersion !== 'admission.k8s.io/v1' || b.kind !== 'AdmissionReview') {
    throw new BadReviewError('expected apiVersion admission.k8s.io/v1 and kind AdmissionReview (set admissionReviewVersions: ["v1"])');
  }
  const r = b.request;
  if (!r || typeof r.uid !== 'string' || !r.uid || typeof r.operation !== 'string' || !r.kind || typeof r.kind.kind !== 'string') {
    throw new BadReviewError('request.uid, request.kind and request.operation are required');
  }
  return r as AdmissionRequest;
}

export const review = (response: AdmissionResponse): AdmissionReviewOut => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });

/** Kubernetes fills namespace from the URL after admission of a CREATE: judge the object as stored. */
function withNamespace(req: AdmissionRequest): unknown {
  const obj = req.object as { metadata?: Record<string, unknown> } | undefined;
  if (!obj || typeof obj !== 'object' || !req.namespace) return obj;
  if (obj.metadata?.namespace) return obj;
  return { ...obj, metadata: { ...(obj.metadata ?? {}), namespace: req.namespace } };
}

function ours(req: AdmissionRequest): boolean {
  return req.kind.group === API_GROUP && isResourceKind(req.kind.kind) && (req.operation === 'CREATE' || req.operation === 'UPDATE') && !req.subResource;
}

function deny(uid: string, errors: ValidationError[], what: string): AdmissionResponse {
  const message = `${what} is invalid: ${errors.map((e) => `${e.path || '(document)'}: ${e.message}`).join('; ')}`;
  return {
    uid,
    allowed: false,
    status: {
      code: 422,
      reason: 'Invalid',
      message,
      details: { causes: errors.map((e) => ({ field: e.path, reason: e.reason, message: e.message })) },
    },
  };
}

/**
 * Validating webhook: the same `validate()` the CLI and the API run, so a manifest is judged the
 * same everywhere. Revisions are immutable: an UPDATE that changes a Revision's spec is refused
 * (status goes through the status subresource, which this webhook does not intercept).
 */
export function validateAdmission(req: AdmissionRequest, lookup?: ValidationLookup): AdmissionResponse {
  if (!ours(req)) return { uid: req.uid, allowed: true };
  const obj = withNamespace(req);
  const name = `${req.kind.kind} ${req.namespace ?? ''}/${req.name ?? (obj as { metadata?: { name?: string } })?.metadata?.name ?? ''}`;
  // The stored object: rules that judge only what a write changes (a keyspace already declared).
  const errors = validate(obj, lookup && { ...lookup, previous: req.operation === 'UPDATE' ? req.oldObject : undefined });
  if (req.operation === 'UPDATE' && req.kind.kind === 'Revision') {
    const before = (req.oldObject as { spec?: unknown } | undefined)?.spec;
    const after = (obj as { spec?: unknown } | undefined)?.spec;
    if (before !== undefined && !isDeepStrictEqual(before, after)) {
      errors.push({ path: 'spec', reason: 'revision_immutable' as ValidationError['reason'], message: 'a Revision never changes; change the Function’s spec.template to create a new revision' });
    }
  }
  return errors.length ? deny(req.uid, errors, name) : { uid: req.uid, allowed: true };
}

/**
 * Defaulting webhook: a JSON Patch that adds the schema's defaults (so `kubectl get -o yaml`
 * shows what the operator will use). Invalid objects pass unpatched: refusing them is the
 * validating webhook's job, with all the error messages.
 */
export function defaultAdmission(req: AdmissionRequest, lookup?: ValidationLookup): AdmissionResponse {
  if (!ours(req)) return { uid: req.uid, allowed: true };
  const obj = withNamespace(req);
  const parsed = parseResource(obj, lookup);
  if (!parsed.ok) return { uid: req.uid, allowed: true };
  const { status: _s, ...defaulted } = parsed.resource as { status?: unknown };
  // The namespace comes from the request URL; never patch it in.
  const ops = defaultsPatch(req.object, defaulted).filter((op) => op.path !== '/metadata/namespace' && op.path !== '/metadata');
  if (ops.length === 0) return { uid: req.uid, allowed: true };
  return { uid: req.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}
