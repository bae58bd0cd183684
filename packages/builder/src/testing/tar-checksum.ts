/** Recomputes a header's checksum after a test changed it. */
export function fixChecksum(tar: Uint8Array, offset: number): void {
  const h = tar.subarray(offset, offset + 512);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.set(new TextEncoder().encode(sum.toString(8).padStart(6, '0') + '\0 '), 148);
}
