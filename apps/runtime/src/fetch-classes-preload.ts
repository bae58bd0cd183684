/**
 * Node loads its fetch implementation (`Request`, `Response`, `Headers` and the web streams behind
 * their bodies) on first use: ~25 ms on this machine, the largest part of a fresh deploy worker's
 * first request (docs/performance.md "coldstart"). A deploy worker calls this right after it says
 * it is listening, while its address travels to the router, so the load overlaps that hop instead
 * of following it. It builds and reads the same objects a request takes (to-web-request.ts,
 * write-web-response.ts) without running the function. Pool workers do more, before listening
 * (warm-up.ts).
 */
export async function preloadFetchClasses(): Promise<void> {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([112]));
      c.close();
    },
  });
  const request = new Request('http://preload.invalid/', { method: 'POST', headers: new Headers({ 'content-type': 'text/plain' }), body, duplex: 'half' } as RequestInit);
  await request.arrayBuffer();
  const reader = new Response('preload').body!.getReader();
  while (!(await reader.read()).done);
}
