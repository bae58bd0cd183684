import { describe, expect, it } from 'vitest';
import { adminCredentialHeaders } from './admin-credential-header.ts';

describe('adminCredentialHeaders', () => {
  it('direct: Authorization: Bearer, as every client', () => {
    expect(adminCredentialHeaders('tok-123', 'direct')).toEqual({ authorization: 'Bearer tok-123' });
  });
  it('through the API server proxy: X-Orrery-Authorization only, Authorization stays the kubeconfig\'s', () => {
    expect(adminCredentialHeaders('tok-123', 'kubernetes-proxy')).toEqual({ 'x-orrery-authorization': 'Bearer tok-123' });
  });
});
