import { isRecord, type ObjectRule } from './object-rule.ts';

/** Longest sticky header or query parameter name (CEL's cost estimate needs a bound). */
export const MAX_STICKY_NAME = 256;

/** On Function.spec (Fission RFC-0023): no keyed state with executor "container" (no fetcher delivers the token). */
export const STATE_NOT_ON_CONTAINER: ObjectRule = {
  reason: 'state_executor_container',
  cel: "!has(self.state) || !has(self.template) || !has(self.template.executor) || self.template.executor != 'container'",
  fieldPath: '.state',
  holds: (spec) => !isRecord(spec) || !isRecord(spec.state) || !isRecord(spec.template) || spec.template.executor !== 'container',
};

/** Whitespace as RE2 and this rule see it (ASCII only, so TypeScript and the API server agree). */
const NOT_BLANK = /[^ \t\n\r\f\v]/;

/** On state.sticky.name: names a header or query parameter, so not empty and not only spaces. */
export const STICKY_NAME_NOT_BLANK: ObjectRule = {
  reason: 'sticky_name',
  cel: `self.matches('${NOT_BLANK.source.replaceAll('\\', '\\\\')}')`,
  holds: (name) => typeof name !== 'string' || NOT_BLANK.test(name),
};
