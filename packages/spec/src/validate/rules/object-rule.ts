import type { z } from 'zod';
import { REASONS, type Reason } from '../reasons.ts';

/**
 * A rule that reads one object and nothing else, written twice side by side: `holds` in
 * TypeScript for `validate()` (the admission webhook, the CLI, the API) and `cel` for the CRD's
 * `x-kubernetes-validations`, so the API server enforces it even when the webhook is not
 * installed. Both judge `self`, the node the rule sits on, as submitted: the CEL guards absent
 * fields with `has()` and never relies on the API server's defaulting, so the two agree on raw
 * objects (rules.twin.test.ts checks them against each other on a table of cases).
 */
export interface ObjectRule {
  reason: Reason;
  /** CEL over `self`. Kubernetes' CEL libraries are allowed (`sum()`, `substring()`), the test registers them. */
  cel: string;
  /** TypeScript twin: false = the rule is broken. Values of the wrong type hold (the schema reports them). */
  holds: (self: unknown) => boolean;
  /** The field the API server blames, relative to `self` (`.revisionName`); absent = `self` itself. */
  fieldPath?: string;
}

/** One entry of a CRD schema node's `x-kubernetes-validations`. */
export interface CelValidation {
  rule: string;
  message: string;
  fieldPath?: string;
}

/** The API server's message: the webhook's words for the reason, then the reason code. */
export function celMessage(reason: Reason): string {
  return `${REASONS[reason]} (${reason})`;
}

export function toCelValidation(rule: ObjectRule): CelValidation {
  return { rule: rule.cel, message: celMessage(rule.reason), ...(rule.fieldPath ? { fieldPath: rule.fieldPath } : {}) };
}

/** Every rule `withCel` has put on a schema (the kinds' modules place them when they load). */
export const PLACED_RULES = new Set<ObjectRule>();

/**
 * Puts the CEL twins of `rules` on a zod schema node (zod's `.meta()` travels into
 * `z.toJSONSchema`, so the generated CRD carries them wherever the schema is used).
 */
export function withCel<S extends z.ZodType>(schema: S, rules: readonly ObjectRule[]): S {
  for (const rule of rules) PLACED_RULES.add(rule);
  return schema.meta({ 'x-kubernetes-validations': rules.map(toCelValidation) });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
