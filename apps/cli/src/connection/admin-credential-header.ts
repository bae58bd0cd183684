/**
 * Which header carries the admin credential (admin token or session id) to the admin API. Direct:
 * `Authorization: Bearer`, as every client. Through the Kubernetes API server's services proxy,
 * `Authorization` carries the kubeconfig's own credential and the API server deletes it after
 * authenticating, so the admin credential travels in `X-Orrery-Authorization` (same value, same
 * rules on the API's side; docs/api.md).
 */
import { ORRERY_AUTHORIZATION_HEADER } from '@orrery/api/http-guards';

export type AdminApiPath = 'direct' | 'kubernetes-proxy';

export function adminCredentialHeaders(token: string, path: AdminApiPath): Record<string, string> {
  return path === 'direct' ? { authorization: `Bearer ${token}` } : { [ORRERY_AUTHORIZATION_HEADER]: `Bearer ${token}` };
}
