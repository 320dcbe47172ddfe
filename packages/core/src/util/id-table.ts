/**
 * A table of what is in flight, keyed by request id or progress token: `get`, `set`, `delete` and `size`
 * as a Map has them (keys compared as a Map compares them), built for the churn of one entry added and
 * removed per call.
 *
 * Why not a Map: a Map whose entries come and go rebuilds its hash table every so many calls, and V8 links
 * each replaced table to its successor (for iterators that were open). Once one of those tables is old
 * (every full collection promotes the live one), each replaced table keeps the next alive through young
 * collections, with every call object it held: an endpoint with 32 calls in flight carried 2-3 MB through
 * each scavenge, a quarter of its time in GC (bench/README.md, "Tables that outlive their calls"). Here an
 * integer key, as request ids and minted tokens are, has a slot (`key & (length - 1)`) in an array that
 * is written, never replaced; a key that is not an integer, or whose slot is taken, goes to a Map beside
 * it.
 *
 * Bench F2 stdio, 32 in flight: a Map takes 1.44-1.49x the time per call on Node 20.20, 1.27-1.31x on 26.12.
 *
 * @example
 * ```ts
 * import { IdTable } from '@mcp-inflight/core/adapter';
 * const inFlight = new IdTable<{ method: string }>();
 * inFlight.set(7, { method: 'tools/call' }); // an integer id: a slot, no hash table
 * inFlight.set('req-a', { method: 'ping' }); // any other id: the Map beside the slots
 * inFlight.get(7)?.method; // 'tools/call'
 * inFlight.delete(7); // true
 * ```
 */
export class IdTable<V> {
  #keys: unknown[] = [];
  #values: (V | undefined)[] = [];
  #inSlots = 0;
  /**
   * Keys that are not integers, and integers whose slot was taken when they came. Made for the first such
   * key: most tables never need it, and an `Endpoint` served per request has three tables.
   */
  #others: Map<unknown, V> | undefined;

  /** Entries held. */
  get size(): number {
    return this.#inSlots + (this.#others?.size ?? 0);
  }

  /** The value held for `key`, or `undefined`. */
  get(key: unknown): V | undefined {
    const slot = this.#slotOf(key);
    return slot < 0 ? this.#others?.get(key) : this.#values[slot];
  }

  /** Whether `key` is held. */
  has(key: unknown): boolean {
    return this.#slotOf(key) >= 0 || !!this.#others?.has(key);
  }

  /** Holds `value` for `key`, replacing what was held for it. */
  set(key: unknown, value: V): void {
    const held = this.#slotOf(key);
    if (held >= 0) {
      this.#values[held] = value;
      return;
    }
    // One key, one place: a key already beside the slots stays there.
    if (typeof key === 'number' && Number.isInteger(key) && !this.#others?.has(key)) {
      if (this.#inSlots * 2 >= this.#keys.length) this.#grow(); // at most half the slots in use
      const slot = key & (this.#keys.length - 1);
      if (this.#keys[slot] === undefined) {
        this.#keys[slot] = key; // -0 here still matches 0 (===), as a Map keys it
        this.#values[slot] = value;
        this.#inSlots++;
        return;
      }
    }
    this.#others ??= new Map();
    this.#others.set(key, value);
  }

  /** Removes `key`; returns whether it was there. */
  delete(key: unknown): boolean {
    const slot = this.#slotOf(key);
    if (slot < 0) return !!this.#others?.delete(key);
    // Cleared, not left: the arrays live as long as the table, and hold nothing of a call that ended.
    this.#keys[slot] = this.#values[slot] = undefined;
    // Emptied after a burst: the slots go, so a connection keeps no arrays sized for its busiest moment.
    if (--this.#inSlots === 0 && this.#keys.length > 1024) {
      this.#keys = [];
      this.#values = [];
    }
    return true;
  }

  /** The values held now, as an array (a snapshot: the table may change while it is walked). */
  list(): V[] {
    const held = this.#values.filter((_, slot) => this.#keys[slot] !== undefined) as V[];
    return [...held, ...(this.#others?.values() ?? [])];
  }

  /** Where `key` sits in the slots, or -1. Only integers are put there, so a fraction never matches. */
  #slotOf(key: unknown): number {
    if (typeof key !== 'number') return -1;
    // The slots are a power of two (none at first: `& -1` then finds nothing in an empty array).
    const slot = key & (this.#keys.length - 1);
    return this.#keys[slot] === key ? slot : -1;
  }

  /** Twice the slots (8 at first); what they held is placed again. */
  #grow(): void {
    const keys = this.#keys;
    const values = this.#values;
    const slots = Math.max(8, keys.length * 2);
    this.#keys = new Array(slots).fill(undefined);
    this.#values = new Array(slots).fill(undefined);
    this.#inSlots = 0;
    for (let slot = 0; slot < keys.length; slot++)
      if (keys[slot] !== undefined) this.set(keys[slot], values[slot] as V);
  }
}
