import { duplicates } from './duplicates.ts';
import { isRecord, type ObjectRule } from './object-rule.ts';

/** Most env variables a template may set: keeps the O(n²) uniqueness rule within CEL's cost budget. */
export const MAX_ENV_VARS = 200;
/** Longest env variable name (Kubernetes sets no limit; CEL's cost estimate needs one). */
export const MAX_ENV_NAME = 256;

export const SOURCE_KEYS = ['inline', 'configMapRef', 'url', 'package'] as const;

/** The source fields that are set (an empty string counts as unset). */
export function sourcesSet(source: Record<string, unknown>): string[] {
  return SOURCE_KEYS.filter((k) => source[k] !== undefined && source[k] !== '');
}

/** On template.source: exactly one of inline, configMapRef, url, package. */
export const SOURCE_EXACTLY_ONE: ObjectRule = {
  reason: 'source_exactly_one',
  cel:
    '(has(self.inline) && size(self.inline) > 0 ? 1 : 0) + (has(self.configMapRef) ? 1 : 0) + ' +
    '(has(self.url) && size(self.url) > 0 ? 1 : 0) + (has(self.package) ? 1 : 0) == 1',
  holds: (source) => !isRecord(source) || sourcesSet(source).length === 1,
};

/** On template.env: each name once. */
export const ENV_NAMES_UNIQUE: ObjectRule = {
  reason: 'env_duplicate',
  cel: 'self.all(e, self.exists_one(f, f.name == e.name))',
  holds: (env) => envDuplicates(env).length === 0,
};

export function envDuplicates(env: unknown): Array<{ index: number; first: number }> {
  return Array.isArray(env) ? duplicates(env.map((e) => (isRecord(e) ? e.name : undefined))) : [];
}

/** On each template.env entry: a plain value or a Secret reference, not both (Kubernetes' EnvVar rule). */
export const ENV_VALUE_OR_SECRET: ObjectRule = {
  reason: 'env_value_or_secret',
  cel: '!has(self.valueFrom) || !has(self.value) || size(self.value) == 0',
  holds: (e) => !isRecord(e) || e.valueFrom === undefined || e.value === undefined || e.value === '',
};

const bounded = (a: Record<string, unknown>) => typeof a.maxScale === 'number' && a.maxScale > 0;

/** On template.autoscaling (Knative): minScale ≤ maxScale unless maxScale is 0 (unbounded). */
export const SCALE_BOUNDS: ObjectRule = {
  reason: 'autoscaling_scale_bounds',
  cel: '!has(self.minScale) || !has(self.maxScale) || self.maxScale <= 0 || self.minScale <= self.maxScale',
  fieldPath: '.minScale',
  holds: (a) => !isRecord(a) || !bounded(a) || typeof a.minScale !== 'number' || a.minScale <= (a.maxScale as number),
};

/** On template.autoscaling (Knative): activationScale ≤ maxScale unless maxScale is 0 (unbounded). */
export const ACTIVATION_SCALE_BOUND: ObjectRule = {
  reason: 'autoscaling_activation_scale',
  cel: '!has(self.activationScale) || !has(self.maxScale) || self.maxScale <= 0 || self.activationScale <= self.maxScale',
  fieldPath: '.activationScale',
  holds: (a) => !isRecord(a) || !bounded(a) || typeof a.activationScale !== 'number' || a.activationScale <= (a.maxScale as number),
};

/** On autoscaling.targetBurstCapacity (Knative): ≥ 0, or -1 (the activator always stays in the path). */
export const BURST_CAPACITY: ObjectRule = {
  reason: 'autoscaling_burst_capacity',
  cel: 'self == -1.0 || self >= 0.0',
  holds: (v) => typeof v !== 'number' || v === -1 || v >= 0,
};
