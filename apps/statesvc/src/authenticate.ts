import type { IncomingHttpHeaders } from 'node:http';
import { STATE_PLACEHOLDER_TOKEN, StateTokenVerifier } from '@orrery/auth';
import { DNS1123_LABEL, KEYSPACE_PATTERN } from '@orrery/spec';
import { STATE_OWNER, type Scope } from '@orrery/statestore';
import { HttpError } from './http-error.ts';

export const NAMESPACE_HEADER = 'x-orrery-state-namespace';
export const KEYSPACE_HEADER = 'x-orrery-state-keyspace';

/**
 * Turns request credentials into a Scope. The namespace and keyspace headers are claims; they
 * only count once the bearer token re-derives for exactly that pair (RFC-0023 S1). In
 * pass-through mode (explicit flag, no master key) any bearer is accepted.
 */
export class Authenticator {
  private readonly verifier: StateTokenVerifier | null;

  constructor(masterKeys: readonly Buffer[], readonly passThrough: boolean) {
    this.verifier = masterKeys.length > 0 ? new StateTokenVerifier(masterKeys) : null;
  }

  scope(headers: IncomingHttpHeaders): Scope {
    const auth = headers.authorization;
    if (!auth || !auth.startsWith('Bearer ') || auth.length <= 7) {
      throw new HttpError('unauthorized', 'send Authorization: Bearer <token> with the token from the file at ORRERY_STATE_TOKEN_PATH');
    }
    const namespace = headers[NAMESPACE_HEADER];
    const keyspace = headers[KEYSPACE_HEADER];
    if (typeof namespace !== 'string' || typeof keyspace !== 'string' || !namespace || !keyspace) {
      throw new HttpError('unauthorized', 'send X-Orrery-State-Namespace and X-Orrery-State-Keyspace with the values from the token file');
    }
    if (namespace.length > 63 || !DNS1123_LABEL.test(namespace) || keyspace.length > 63 || !KEYSPACE_PATTERN.test(keyspace)) {
      throw new HttpError('forbidden', 'the token does not grant this namespace/keyspace');
    }
    if (!this.passThrough) {
      if (auth.slice(7).trim() === STATE_PLACEHOLDER_TOKEN) {
        throw new HttpError('forbidden', 'this is the placeholder token of an operator without a master key; give the operator --master-key-file with the key statesvc uses (or, in development only, run statesvc with --insecure-pass-through)');
      }
      if (!this.verifier || !this.verifier.verify(auth.slice(7).trim(), namespace, keyspace)) {
        throw new HttpError('forbidden', `the token does not grant keyspace ${namespace}/${keyspace}; use the token issued for it`);
      }
    }
    return { namespace, owner: STATE_OWNER, keyspace };
  }
}
