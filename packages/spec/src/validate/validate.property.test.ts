import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validate } from './index.ts';
import { RESOURCE_KINDS } from '../resource.ts';

// validate() runs on untrusted input (admission webhook, API): it must never throw, and every
// error it returns must be well formed.
describe('validate on arbitrary input', () => {
  const wellFormed = (errors: ReturnType<typeof validate>) =>
    errors.every((e) => typeof e.path === 'string' && /^[a-z0-9_]+$/.test(e.reason) && e.message.length > 0);

  it('never throws on any value', () => {
    fc.assert(fc.property(fc.anything(), (x) => wellFormed(validate(x))), { numRuns: 300 });
  });

  it('never throws on resources with random specs, and reports something for non-objects', () => {
    const doc = fc.record({
      apiVersion: fc.constant('orrery.dev/v1alpha1'),
      kind: fc.constantFrom(...RESOURCE_KINDS),
      metadata: fc.record({ name: fc.oneof(fc.constant('demo'), fc.string()) }),
      spec: fc.oneof(fc.object(), fc.anything()),
    });
    fc.assert(
      fc.property(doc, (d) => {
        const errors = validate(d);
        if (typeof d.spec !== 'object' || d.spec === null || Array.isArray(d.spec)) {
          expect(errors.some((e) => e.path === 'spec' || e.path.startsWith('spec'))).toBe(true);
        }
        return wellFormed(errors);
      }),
      { numRuns: 300 },
    );
  });
});
