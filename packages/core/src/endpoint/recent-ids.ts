import type { RequestId } from '../schemas/types.js';

/** A bounded set of request ids, oldest forgotten first, so memory never grows with a connection's life. */
export class RecentIds {
  #ids = new Set<RequestId>();

  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  add(id: RequestId): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.capacity) this.#ids.delete(this.#ids.values().next().value as RequestId);
  }

  has(id: RequestId): boolean {
    return this.#ids.has(id);
  }

  /** Removes `id`, returning whether it was there. */
  take(id: RequestId): boolean {
    return this.#ids.delete(id);
  }

  get size(): number {
    return this.#ids.size;
  }
}
