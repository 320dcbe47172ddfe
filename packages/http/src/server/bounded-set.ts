/**
 * A set that keeps at most `limit` members, forgetting the oldest first, so a table fed for the life of a
 * session stays bounded (rule 8).
 */
export class BoundedSet<T> {
  #members = new Set<T>();

  constructor(readonly limit: number) {}

  has(value: T): boolean {
    return this.#members.has(value);
  }

  add(value: T): void {
    this.#members.delete(value); // re-adding makes it the newest
    this.#members.add(value);
    if (this.#members.size > this.limit) this.#members.delete(this.#members.values().next().value as T);
  }

  delete(value: T): void {
    this.#members.delete(value);
  }

  get size(): number {
    return this.#members.size;
  }
}
