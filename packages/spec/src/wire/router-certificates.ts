import { DOMAIN_HOST_PATTERN } from '../validate/rules/domain-rules.ts';

/**
 * The certificates the routers serve, as the operator hands them over (docs/domains.md): a
 * folder with one file per host, `<host>.pem`, holding the certificate chain (leaf first) and
 * then the private key, PEM. The operator writes only certificates it checked (claimed host,
 * valid now, covering the host, key matching); the routers read nothing else and need no access
 * to the tenants' Secrets. On Kubernetes the folder is the router-owned Secret mounted into the
 * router pods (one key per host); on the local platform `<data-dir>/router-certs/`, files 0600.
 * One file per host, so a certificate and its key change together (one rename, one
 * Secret-volume swap): the router never pairs a new certificate with an old key.
 */
export const LOCAL_ROUTER_CERTS_DIR = 'router-certs';

const SUFFIX = '.pem';

export function routerCertificateFile(host: string): string {
  return `${host}${SUFFIX}`;
}

/** The host a bundle file is for; undefined for any other file (a Secret volume's `..data`, a temp file). */
export function hostOfRouterCertificateFile(file: string): string | undefined {
  if (!file.endsWith(SUFFIX)) return undefined;
  const host = file.slice(0, -SUFFIX.length);
  return host.length <= 253 && DOMAIN_HOST_PATTERN.test(host) ? host : undefined;
}

/** One bundle file's text: the chain, then the key. */
export function routerCertificatePem(chainPem: string, keyPem: string): string {
  const nl = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);
  return nl(chainPem) + nl(keyPem);
}
