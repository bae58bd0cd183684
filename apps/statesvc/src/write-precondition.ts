import { HttpError } from './http-error.ts';
import { parseIfMatch } from './state-key.ts';

export const VERSION_HEADER = 'x-orrery-state-version';

/**
 * The version a write is conditioned on (RFC-0023 §3: `If-Match` → IfVersion; the request may
 * carry `X-Orrery-State-Version` too, and the seed lists it among the request headers): either
 * header alone sets it, both must agree, and a CAS body's `expectVersion` must agree with any
 * header. Disagreement is a 400 rather than a silent pick: the client meant one of two different
 * writes and only it knows which. `undefined` = an unconditional write.
 *
 * Both headers take the same values: `5` or `"5"`; `0` = create only.
 */
export function writePrecondition(
  headers: { ifMatch?: string | string[]; version?: string | string[] },
  casExpectVersion?: number,
): number | undefined {
  const ifMatch = parseIfMatch(single('If-Match', headers.ifMatch));
  const version = parseVersionHeader(single('X-Orrery-State-Version', headers.version));
  if (ifMatch !== undefined && version !== undefined && ifMatch !== version) {
    throw new HttpError('bad_request', `If-Match (${ifMatch}) and X-Orrery-State-Version (${version}) name different versions; send one precondition, or the same version in both`);
  }
  const fromHeaders = ifMatch ?? version;
  if (casExpectVersion !== undefined && fromHeaders !== undefined && fromHeaders !== casExpectVersion) {
    throw new HttpError('bad_request', `the body's expectVersion (${casExpectVersion}) and the ${ifMatch !== undefined ? 'If-Match' : 'X-Orrery-State-Version'} header (${fromHeaders}) name different versions; send the precondition once`);
  }
  return casExpectVersion ?? fromHeaders;
}

function single(name: string, value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) throw new HttpError('bad_request', `send ${name} once`);
  return value;
}

function parseVersionHeader(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parseIfMatch(value);
  } catch {
    throw new HttpError('bad_request', 'X-Orrery-State-Version must be a version number returned in X-Orrery-State-Version (0 = create only)');
  }
}
