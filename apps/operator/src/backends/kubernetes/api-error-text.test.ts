import { describe, expect, it } from 'vitest';
import { ApiException } from '@kubernetes/client-node';
import { apiErrorText } from './api-error-text.ts';

describe('apiErrorText', () => {
  it('keeps the code and the Status message only, never the headers', () => {
    const err = new ApiException(403, 'HTTP-Code: 403\nBody: …\nHeaders: {"audit-id":"x"}', JSON.stringify({ kind: 'Status', message: 'deployments.apps "d" is forbidden: User "u" cannot patch resource "deployments"' }), { 'audit-id': 'x' });
    expect(apiErrorText(err)).toBe('403: deployments.apps "d" is forbidden: User "u" cannot patch resource "deployments"');
  });
  it('falls back to the body, then to plain errors', () => {
    expect(apiErrorText(new ApiException(502, 'x', '<html>bad gateway</html>', {}))).toBe('502: <html>bad gateway</html>');
    expect(apiErrorText(new Error('connect ECONNREFUSED'))).toBe('connect ECONNREFUSED');
    expect(apiErrorText('plain')).toBe('plain');
  });
});
