import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A certificate and its key on disk (PEM). */
export interface CertFiles {
  cert: string;
  key: string;
}

export interface ClientIdentity {
  /** File name stem, e.g. `admin`. */
  name: string;
  /** The user name Kubernetes sees (certificate CN). */
  user: string;
  /** Groups (certificate O fields), e.g. `system:masters`. */
  groups?: string[];
}

export interface Pki {
  dir: string;
  ca: CertFiles;
  apiserver: CertFiles;
  /** Signs and verifies ServiceAccount tokens (RSA pair). */
  serviceAccount: { key: string; pub: string };
  clients: Record<string, CertFiles>;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * The control plane's certificates, made with the openssl CLI (Node can verify X.509 but not
 * issue it): a CA, the API server's serving certificate for the names and addresses pods and
 * tests use, the ServiceAccount signing pair, and one client certificate per identity. Files are
 * reused when present, so a restarted control plane keeps trusting what it issued before.
 */
export function makePki(dir: string, o: { apiserverIPs: string[]; apiserverDNS: string[]; clients: ClientIdentity[] }): Pki {
  const p = (f: string) => join(dir, f);
  if (!existsSync(p('ca.crt'))) {
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3650', '-subj', '/CN=orrery-kube-testenv-ca'], dir);
  }
  const sign = (stem: string, subject: string, ext: string) => {
    if (existsSync(p(`${stem}.crt`))) return { cert: p(`${stem}.crt`), key: p(`${stem}.key`) };
    writeFileSync(p(`${stem}.ext`), ext);
    openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${stem}.key`, '-out', `${stem}.csr`, '-subj', subject], dir);
    openssl(['x509', '-req', '-in', `${stem}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${stem}.crt`, '-days', '3650', '-extfile', `${stem}.ext`], dir);
    return { cert: p(`${stem}.crt`), key: p(`${stem}.key`) };
  };
  const san = [...o.apiserverDNS.map((d) => `DNS:${d}`), ...o.apiserverIPs.map((ip) => `IP:${ip}`)].join(',');
  const apiserver = sign('apiserver', '/CN=kube-apiserver', `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`);
  if (!existsSync(p('sa.key'))) {
    openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
    openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  }
  const clients: Record<string, CertFiles> = {};
  for (const c of o.clients) {
    const subject = `/CN=${c.user}${(c.groups ?? []).map((g) => `/O=${g}`).join('')}`;
    clients[c.name] = sign(`client-${c.name}`, subject, 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
  }
  return { dir, ca: { cert: p('ca.crt'), key: p('ca.key') }, apiserver, serviceAccount: { key: p('sa.key'), pub: p('sa.pub') }, clients };
}

/** A serving certificate for a webhook or any in-cluster TLS endpoint, signed by a fresh CA. */
export function makeServingCert(dir: string, stem: string, dnsNames: string[]): { caPem: string; cert: string; key: string } {
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${stem}-ca.key`, '-out', `${stem}-ca.crt`, '-days', '365', '-subj', `/CN=${stem}-ca`], dir);
  writeFileSync(join(dir, `${stem}.ext`), `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${dnsNames.map((d) => `DNS:${d}`).join(',')}\n`);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${stem}.key`, '-out', `${stem}.csr`, '-subj', `/CN=${dnsNames[0]}`], dir);
  openssl(['x509', '-req', '-in', `${stem}.csr`, '-CA', `${stem}-ca.crt`, '-CAkey', `${stem}-ca.key`, '-CAcreateserial', '-out', `${stem}.crt`, '-days', '365', '-extfile', `${stem}.ext`], dir);
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { caPem: read(`${stem}-ca.crt`), cert: read(`${stem}.crt`), key: read(`${stem}.key`) };
}
