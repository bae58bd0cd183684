/**
 * A host's certificate bundle in the router's certs folder (`--tls-certs-dir`), written as the
 * operator writes it: a temp file renamed over the old one, so the router never reads half a file.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { routerCertificateFile, routerCertificatePem } from '@orrery/spec';

export function writeRouterCertificate(certsDir: string, host: string, cert: { certPem: string; keyPem: string }): void {
  const path = join(certsDir, routerCertificateFile(host));
  writeFileSync(`${path}.tmp`, routerCertificatePem(cert.certPem, cert.keyPem), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
