/**
 * A routes file (`--routes-file`) of Functions reached by custom domains over TLS, each with one
 * revision `<name>-00001`: what the TLS tests route by host. The secret a domain names is
 * `<name>-tls`; the router reads certificates from its certs folder, not from the secret.
 */
export interface DomainFunction {
  name: string;
  host: string;
  /** Plain HTTP to this host gets 308 to HTTPS. */
  redirectToHTTPS?: boolean;
}

export function domainRoutesYaml(functions: DomainFunction[], namespace = 'team'): string {
  return functions
    .map((f) => {
      const domain = `{host: ${f.host}, tls: {secretName: ${f.name}-tls}${f.redirectToHTTPS ? ', redirectToHTTPS: true' : ''}}`;
      return `---
apiVersion: orrery.dev/v1alpha1
kind: Function
metadata: {name: ${f.name}, namespace: ${namespace}}
spec:
  template: {source: {inline: "x"}}
  domains: [${domain}]
---
apiVersion: orrery.dev/v1alpha1
kind: Revision
metadata: {name: ${f.name}-00001, namespace: ${namespace}}
spec: {function: ${f.name}, template: {source: {inline: "x"}}}
`;
    })
    .join('');
}
