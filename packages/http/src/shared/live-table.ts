import { IdTable } from '@mcp-inflight/core/adapter';

/**
 * Objects alive for one request or stream (abort controllers, response streams, 2026-07-28 endpoints), each
 * under a number the table gives it. An `IdTable`, not a `Set`: a Set that gains and loses an entry per
 * call allocates a new hash table each time on Node 20 (see core's IdTable).
 */
export class LiveTable<T> {
  #table = new IdTable<T>();
  #next = 0;

  /** Holds `value`; returns the number to delete it by. */
  add(value: T): number {
    const key = this.#next++;
    this.#table.set(key, value);
    return key;
  }

  delete(key: number): void {
    this.#table.delete(key);
  }

  get size(): number {
    return this.#table.size;
  }

  list(): T[] {
    return this.#table.list();
  }
}
