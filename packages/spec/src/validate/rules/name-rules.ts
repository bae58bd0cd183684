import { DNS1123_LABEL } from '../../meta.ts';
import { isRecord, type ObjectRule } from './object-rule.ts';

/**
 * Rules on metadata.name. They sit on the CRD's root, the only place where CEL sees
 * `metadata.name` (and nothing else of metadata: labels and annotations are out of its reach).
 */
const nameOf = (obj: unknown): unknown => (isRecord(obj) && isRecord(obj.metadata) ? obj.metadata.name : undefined);

/** Every kind: names are DNS-1123 labels (Kubernetes itself allows DNS-1123 subdomains, with dots). */
export const NAME_FORMAT: ObjectRule = {
  reason: 'name_format',
  cel: `self.metadata.name.matches('${DNS1123_LABEL.source}')`,
  holds: (obj) => {
    const name = nameOf(obj);
    return typeof name !== 'string' || DNS1123_LABEL.test(name);
  },
};

/** Every kind: at most 63 characters. */
export const NAME_LENGTH: ObjectRule = {
  reason: 'name_too_long',
  cel: 'size(self.metadata.name) <= 63',
  holds: (obj) => {
    const name = nameOf(obj);
    return typeof name !== 'string' || [...name].length <= 63;
  },
};

/** Function: at most 57 characters, so `<name>-00001` stays a 63-character name (longer is name_too_long). */
export const FUNCTION_NAME_ROOM: ObjectRule = {
  reason: 'function_name_too_long',
  cel: 'size(self.metadata.name) <= 57 || size(self.metadata.name) > 63',
  holds: (obj) => {
    const name = nameOf(obj);
    if (typeof name !== 'string') return true;
    const length = [...name].length;
    return length <= 57 || length > 63;
  },
};

/**
 * Revision: named `<spec.function>-NNNNN` (five or more digits). In CEL the name is cut at the
 * function's length rather than tested with startsWith or a regex built from spec.function: the
 * API server's cost estimate (metadata.name has no maxLength there) refuses those.
 */
export const REVISION_NAME: ObjectRule = {
  reason: 'revision_name',
  cel:
    '!has(self.spec.function) || size(self.spec.function) == 0 || (size(self.metadata.name) > size(self.spec.function) && ' +
    'self.metadata.name.substring(0, size(self.spec.function)) == self.spec.function && ' +
    "self.metadata.name.substring(size(self.spec.function)).matches('^-[0-9]{5,}$'))",
  holds: (rev) => {
    const fn = isRecord(rev) && isRecord(rev.spec) ? rev.spec.function : undefined;
    const name = nameOf(rev);
    if (typeof fn !== 'string' || fn === '' || typeof name !== 'string') return true;
    return name.startsWith(`${fn}-`) && /^[0-9]{5,}$/.test(name.slice(fn.length + 1));
  },
};
