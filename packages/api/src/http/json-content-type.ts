/**
 * Procedures take JSON only. tRPC would also accept `multipart/form-data` and
 * `application/octet-stream` — what an HTML form on another site can send without a CORS
 * preflight — so any other content type on a request with a body is refused (415).
 */
export function isJsonRequest(method: string, contentType: string | null | undefined): boolean {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') return true;
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}
