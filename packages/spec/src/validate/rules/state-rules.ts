import { isRecord, type ObjectRule } from './object-rule.ts';

/** Longest sticky header, query parameter or cookie name (CEL's cost estimate needs a bound). */
export const MAX_STICKY_NAME = 256;

/** On Function.spec (Fission RFC-0023): no keyed state with executor "container" (no fetcher delivers the token). */
export const STATE_NOT_ON_CONTAINER: ObjectRule = {
  reason: 'state_executor_container',
  cel: "!has(self.state) || !has(self.template) || !has(self.template.executor) || self.template.executor != 'container'",
  fieldPath: '.state',
  holds: (spec) => !isRecord(spec) || !isRecord(spec.state) || !isRecord(spec.template) || spec.template.executor !== 'container',
};

/**
 * On Function.spec.state: fencing needs a sticky key. Without one, requests for a key spread
 * over every worker, and each write would claim the key away from the worker that wrote last.
 */
export const FENCING_NEEDS_STICKY: ObjectRule = {
  reason: 'fencing_needs_sticky',
  cel: '!has(self.fencing) || !self.fencing || has(self.sticky)',
  fieldPath: '.fencing',
  holds: (state) => !isRecord(state) || state.fencing !== true || state.sticky !== undefined,
};

/** Whitespace as RE2 and this rule see it (ASCII only, so TypeScript and the API server agree). */
const NOT_BLANK = /[^ \t\n\r\f\v]/;

/** On state.sticky.name: names a header or query parameter, so not empty and not only spaces. */
export const STICKY_NAME_NOT_BLANK: ObjectRule = {
  reason: 'sticky_name',
  cel: `self.matches('${NOT_BLANK.source.replaceAll('\\', '\\\\')}')`,
  holds: (name) => typeof name !== 'string' || NOT_BLANK.test(name),
};

/**
 * A cookie name is an RFC 6265 §4.1.1 `token` (RFC 9110 §5.6.2 tchar): no separators, spaces or
 * controls. A name outside it never arrives as one cookie (a browser would not send it, and the
 * router splits pairs at `;` and `=`), so such a function would never see its key.
 */
export const COOKIE_NAME_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * On state.sticky: with `source: cookie`, the name is a cookie name. A blank name is left to
 * `sticky_name` (one reason per mistake).
 */
export const STICKY_COOKIE_NAME: ObjectRule = {
  reason: 'sticky_cookie_name',
  cel:
    "!has(self.source) || self.source != 'cookie' || !has(self.name) || " +
    `!self.name.matches('${NOT_BLANK.source.replaceAll('\\', '\\\\')}') || ` +
    `self.name.matches("${COOKIE_NAME_TOKEN.source}")`,
  fieldPath: '.name',
  holds: (sticky) =>
    !isRecord(sticky) || sticky.source !== 'cookie' || typeof sticky.name !== 'string' || !NOT_BLANK.test(sticky.name) || COOKIE_NAME_TOKEN.test(sticky.name),
};
