/**
 * A set of objects that join and leave many times a second — responses whose head waits for the
 * end of the turn, busy upstream connections — kept without allocating in steady state. A JS
 * `Set` that swings between a few members and none reallocates its table (V8 rehashes an ordered
 * hash set that falls below a quarter full, and `clear()` allocates a new one): in the router's
 * allocation profile its two sets cost ~200 of the ~5.9 KB allocated per proxied request. Here
 * each member keeps its own index, removal moves the last member into the hole, and the backing
 * array only ever grows.
 */
export interface Slotted {
  /** The member's index in the one SlotList it is in; -1 when in none. */
  slotIndex: number;
}

export class SlotList<T extends Slotted> {
  private readonly items: Array<T | undefined> = [];
  size = 0;

  add(member: T): void {
    if (this.has(member)) return;
    member.slotIndex = this.size;
    if (this.size < this.items.length) this.items[this.size] = member;
    else this.items.push(member);
    this.size++;
  }

  has(member: T): boolean {
    return member.slotIndex >= 0 && member.slotIndex < this.size && this.items[member.slotIndex] === member;
  }

  delete(member: T): boolean {
    if (!this.has(member)) return false;
    const index = member.slotIndex;
    const last = this.items[--this.size]!;
    this.items[index] = last;
    last.slotIndex = index;
    this.items[this.size] = undefined;
    member.slotIndex = -1;
    return true;
  }

  /**
   * Calls `fn` for each member, the last first. `fn` may remove members: the one it was given,
   * or others (one removed before its turn is not visited; one moved into a visited slot may be
   * visited twice). Members added meanwhile are not visited.
   */
  forEach(fn: (member: T) => void): void {
    for (let i = this.size - 1; i >= 0; i--) {
      if (i < this.size) fn(this.items[i]!);
    }
  }
}
