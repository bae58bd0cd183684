/**
 * Puts a package archive on the local platform: `PUT /v1/packages/<namespace>/<sha256>` on the
 * operator (docs/packages.md), with the store token or the admin-API credential the CLI holds.
 * A HEAD first: an archive already there is not sent again.
 */
export async function uploadPackage(baseUrl: string, token: string | undefined, namespace: string, sha256: string, archive: Buffer, doFetch: typeof fetch = fetch): Promise<'uploaded' | 'present'> {
  const url = `${baseUrl.replace(/\/+$/, '')}/v1/packages/${encodeURIComponent(namespace)}/${sha256}`;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const head = await doFetch(url, { method: 'HEAD', headers });
  if (head.status === 200) return 'present';
  const res = await doFetch(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream' }, body: new Uint8Array(archive) });
  if (res.ok) return 'uploaded';
  let detail = `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: string; code?: string };
    if (body.error) detail = `${body.error} (${body.code ?? res.status})`;
  } catch {
    // not JSON: the status says it
  }
  if (res.status === 404) detail = `${url} has no package upload (an operator older than packages?): ${detail}`;
  throw new Error(`uploading the package failed: ${detail}`);
}
