/**
 * A set that keeps at most `limit` members, forgetting the oldest first, so a table fed for the life of a
 * connection or session stays bounded (rule 8): recent request ids, early cancels, task ids.
 */
export class BoundedSet<T> {
  #members = new Set<T>();

  /** The most members kept. */
  readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Whether `value` is a member. */
  has(value: T): boolean {
    return this.#members.has(value);
  }

  /** Adds `value` as the newest member, forgetting the oldest past the limit. */
  add(value: T): void {
    this.#members.delete(value); // re-adding makes it the newest
    this.#members.add(value);
    if (this.#members.size > this.limit) this.#members.delete(this.#members.values().next().value as T);
  }

  /** Removes `value`, returning whether it was there. */
  delete(value: T): boolean {
    return this.#members.delete(value);
  }

  /** How many members there are. */
  get size(): number {
    return this.#members.size;
  }
}
