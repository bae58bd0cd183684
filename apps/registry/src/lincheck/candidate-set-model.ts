import { instanceModelStep } from './instance-writes.ts';
import type { Model } from './wgl.ts';

/**
 * The registry as a sequential object whose queries answer whole candidate sets (the seed's
 * 实例候选集一致性: every query answer is the set of matching instances at one linearizable
 * point). A query is not an operation on one instance, so — unlike registry-model.ts, whose
 * per-instance queries let a history be split by instance — a history with these queries is
 * checked as a whole: the checker must find one point per query where the whole set matched.
 *
 * An instance's content is its labels; a query selects with the registry's equality terms
 * (`key=value`, and `key!=value`, which also matches instances without the key).
 */
export type Labels = Readonly<Record<string, string>>;

export interface SelectorTerm {
  key: string;
  op: '=' | '!=';
  value: string;
}

export type SetInput =
  | { kind: 'register'; id: string; labels: Labels }
  | { kind: 'deregister'; id: string }
  | { kind: 'heartbeat'; id: string }
  /** Every instance whose labels satisfy all terms (no terms: every instance). */
  | { kind: 'query'; selector: readonly SelectorTerm[] };

export type SetOutput =
  | { kind: 'ok' }
  | { kind: 'not_found' }
  /** Failed or timed out: the write may or may not have happened (see prepare-history.ts). */
  | { kind: 'unknown' }
  /** A query's answer as `instanceEntry` strings, sorted. */
  | { kind: 'instances'; entries: string[] };

export type SetState = ReadonlyMap<string, Labels>;

/** `id{k=v,…}` with the keys sorted: how an answered instance and a model instance compare. */
export function instanceEntry(id: string, labels: Labels): string {
  const body = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
  return `${id}{${body}}`;
}

export function matches(labels: Labels, selector: readonly SelectorTerm[]): boolean {
  return selector.every((t) => (t.op === '=' ? labels[t.key] === t.value : labels[t.key] !== t.value));
}

/** The selector as the registry's `selector=` query parameter value. */
export function selectorParam(selector: readonly SelectorTerm[]): string {
  return selector.map((t) => `${t.key}${t.op}${t.value}`).join(',');
}

/** The candidate set a query must answer in `state`. */
export function candidateSet(state: SetState, selector: readonly SelectorTerm[]): string[] {
  const out: string[] = [];
  for (const [id, labels] of state) if (matches(labels, selector)) out.push(instanceEntry(id, labels));
  return out.sort();
}

export const candidateSetModel: Model<SetState, SetInput, SetOutput> = {
  init: () => new Map(),
  key: (s) => candidateSet(s, []).join(' '),
  step: instanceModelStep<Labels, SetInput>((register) => register.labels, (state, query) => candidateSet(state, query.selector)),
};
