/** Every repeated string value: its index and the index of its first use (other types are skipped). */
export function duplicates(values: readonly unknown[]): Array<{ index: number; first: number }> {
  const seen = new Map<string, number>();
  const out: Array<{ index: number; first: number }> = [];
  for (const [index, v] of values.entries()) {
    if (typeof v !== 'string') continue;
    const first = seen.get(v);
    if (first !== undefined) out.push({ index, first });
    else seen.set(v, index);
  }
  return out;
}
