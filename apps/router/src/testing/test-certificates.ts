/**
 * Certificates for TLS tests, made by the openssl CLI (a real CA, as a user's would be): a CA
 * and leaf certificates for given host names, ECDSA P-256. Each leaf gets a fresh serial, so a
 * test can tell a renewed certificate from the old one.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  certPem: string;
  /** A leaf for `hosts` (subjectAltName DNS names), valid 10 days. */
  issue(hosts: string[]): { certPem: string; keyPem: string; serial: string };
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

export function makeTestCa(dir: string): TestCa {
  mkdirSync(dir, { recursive: true });
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '30', '-subj', '/CN=orrery-test-ca'], dir);
  let n = 0;
  return {
    dir,
    certPem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    issue(hosts) {
      const stem = `leaf-${++n}`;
      writeFileSync(join(dir, `${stem}.ext`), `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
      openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${stem}.key`, '-out', `${stem}.csr`, '-subj', `/CN=${hosts[0]}`], dir);
      openssl(['x509', '-req', '-in', `${stem}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', `0x${Date.now().toString(16)}${n.toString(16).padStart(4, '0')}`, '-out', `${stem}.crt`, '-days', '10', '-extfile', `${stem}.ext`], dir);
      const certPem = readFileSync(join(dir, `${stem}.crt`), 'utf8');
      const serial = openssl(['x509', '-in', `${stem}.crt`, '-noout', '-serial'], dir).trim().replace(/^serial=/, '');
      return { certPem, keyPem: readFileSync(join(dir, `${stem}.key`), 'utf8'), serial };
    },
  };
}
