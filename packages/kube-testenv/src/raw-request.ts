/**
 * Raw JSON requests to the API server with a KubeConfig's credentials. client-node's typed
 * clients serialise CustomResourceDefinitions through their model classes, which know
 * `x-kubernetes-validations` only as the property `xKubernetesValidations`: a CRD read from YAML
 * loses its CEL rules on the way. These requests send and return the JSON as it is.
 */
import { request } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface RawAnswer {
  status: number;
  body: Record<string, unknown>;
}

export async function kubeRequest(kc: KubeConfig, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<RawAnswer> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig names no cluster');
  const url = new URL(path, server);
  const options: Parameters<typeof request>[1] = { method, headers: { accept: 'application/json' } };
  await kc.applyToHTTPSOptions(options);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) options.headers = { ...options.headers, 'content-type': contentType, 'content-length': Buffer.byteLength(payload) };
  return new Promise((resolve, reject) => {
    const req = request(url, options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Server-side applies one CRD as JSON (field manager `kube-testenv`, forced: the test owns it). */
export async function applyCrd(kc: KubeConfig, crd: { metadata: { name: string } }): Promise<RawAnswer> {
  return kubeRequest(
    kc,
    'PATCH',
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=kube-testenv&force=true`,
    crd,
    'application/apply-patch+yaml',
  );
}
