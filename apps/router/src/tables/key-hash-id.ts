/**
 * The owner table's entity id for one sticky key: `<namespace>/<function>#<FNV-1a-64 of the key, 16
 * hex digits>`. The key itself (a session id, a user id) never reaches Redis or the logs; with 64 bits
 * the chance that any two of n keys share an id is about n²/2⁶⁵ (≈ 3·10⁻¹⁰ for 100 000 keys).
 */

const HEX8 = '00000000';

function hex8(n: number): string {
  const h = (n >>> 0).toString(16);
  return h.length === 8 ? h : HEX8.slice(h.length) + h;
}

export function keyHashHex(hi: number, lo: number): string {
  return hex8(hi) + hex8(lo);
}

export function stickyEntityId(functionKey: string, keyHashHi: number, keyHashLo: number): string {
  if (!functionKey) throw new Error('sticky owner: functionKey must be non-empty');
  return `${functionKey}#${keyHashHex(keyHashHi, keyHashLo)}`;
}

/** The function part of an entity id (everything before the last `#`), or undefined when malformed. */
export function functionKeyOf(entityId: string): string | undefined {
  const i = entityId.lastIndexOf('#');
  return i > 0 && /^[0-9a-f]{16}$/.test(entityId.slice(i + 1)) ? entityId.slice(0, i) : undefined;
}
