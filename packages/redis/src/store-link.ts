// The directory's link to Redis: every command bounded in time, the outage it sees (down, up, errors
// counted), and the writes it keeps while Redis is away, written again once Redis is back (rule 15: a
// Redis outage loses nothing the proxy acknowledged).
import { JsonRpcError } from '@mcp-inflight/core';
import { guard, messageOf, TASK_STORE_UNAVAILABLE } from './connection.js';

/**
 * What the directory tells of its link to Redis (`onStore` of {@link RedisTaskDirectoryOptions}): the
 * outage began (`store-down`, with the error that showed it), it ended (`store-up`, once every write kept
 * meanwhile is in Redis), or a kept write was given up because its task's TTL passed first.
 *
 * @example
 * ```ts
 * import type { StoreEvent } from '@mcp-inflight/redis';
 * const log = (event: StoreEvent) => console.error(event.type, JSON.stringify(event));
 * log({ type: 'store-up', downMs: 8_000, writtenAfter: 3 });
 * ```
 */
export type StoreEvent =
  | {
      /** Redis stopped answering (a failed or timed-out command, a closed connection). */
      type: 'store-down';
      /** The error that showed it. */
      message: string;
    }
  | {
      /** Redis answers again, and every write kept meanwhile is in it. */
      type: 'store-up';
      /** How long it was away, in ms. */
      downMs: number;
      /** Writes kept during the outage and written now. */
      writtenAfter: number;
    }
  | {
      /** A kept write was given up: its task's TTL passed before Redis came back. */
      type: 'store-write-dropped';
      /** The host-facing task id. */
      taskId: string;
    };

/**
 * The link's state, read when scraped (the proxy's `mcp_proxy_store_*` metrics).
 *
 * @example
 * ```ts
 * import type { StoreHealth } from '@mcp-inflight/redis';
 * declare const health: StoreHealth;
 * if (!health.up) console.error(`Redis away; ${health.pendingWrites} writes kept`);
 * ```
 */
export interface StoreHealth {
  /** Redis answers and nothing kept is waiting. */
  readonly up: boolean;
  /** Commands that failed or went unanswered, since the start. */
  readonly errors: number;
  /** Writes kept for when Redis is back. */
  readonly pendingWrites: number;
}

/** One kept write: the whole value of a key, written with what is left of its TTL. */
export interface KeptWrite {
  /** The task it is for (named when the write is given up). */
  readonly taskId: string;
  /** Writes it (throws while Redis is away); told how much of the TTL is left, in ms. */
  write(leftMs: number): Promise<void>;
  /** When the key's task ends (epoch ms): past it, the write is given up. */
  readonly expiresAt: number;
}

/** How the link behaves (defaults in {@link RedisTaskDirectoryOptions}). */
export interface StoreLinkOptions {
  commandTimeoutMs: number;
  retryMs: number;
  maxPendingWrites: number;
  onStore: (event: StoreEvent) => void;
}

/**
 * One Redis connection's commands, bounded in time, and its health. A command Redis does not answer
 * within `commandTimeoutMs` (a stopped Redis keeps the socket open) fails as one that was refused.
 */
export class StoreLink {
  readonly #send: (args: readonly string[]) => Promise<unknown>;
  readonly #options: StoreLinkOptions;
  /** Kept writes by key, in the order they were made (a later one for a key replaces it). */
  readonly #kept = new Map<string, KeptWrite>();
  #up = true;
  #downSince = 0;
  /** When Redis last came back (epoch ms); -Infinity while it never went away. */
  #upSince = Number.NEGATIVE_INFINITY;
  #errors = 0;
  /** Kept writes written since the outage began (told with its end). */
  #writtenAfter = 0;
  #flushing: Promise<void> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(send: (args: readonly string[]) => Promise<unknown>, options: StoreLinkOptions) {
    this.#send = send;
    this.#options = options;
  }

  get health(): StoreHealth {
    return { up: this.#up, errors: this.#errors, pendingWrites: this.#kept.size };
  }

  /** When Redis last came back from an outage this link saw (epoch ms), or -Infinity. */
  get upSince(): number {
    return this.#upSince;
  }

  /** One command; a failure (or no answer in time) is -32603 `TASK_STORE_UNAVAILABLE`, and marks it down. */
  async run(args: readonly string[]): Promise<unknown> {
    let result: unknown;
    try {
      result = await this.bounded(args);
    } catch (error) {
      this.failed(error);
      return guard(() => Promise.reject(error));
    }
    if (!this.#up) this.kick();
    return result;
  }

  /** Redis failed: counted; the first failure of an outage is told, and retries start. */
  failed(error: unknown): void {
    this.#errors++;
    if (this.#up) {
      this.#up = false;
      const sentAt = (error as { sentAt?: unknown } | null)?.sentAt;
      this.#downSince = typeof sentAt === 'number' ? sentAt : Date.now();
      this.#writtenAfter = 0;
      this.#options.onStore({ type: 'store-down', message: messageOf(error) });
    }
    this.#schedule();
  }

  /**
   * Writes `key` now, or, while Redis is away, keeps it and writes it once Redis is back (until its
   * `expiresAt`). Rejects only when the keep is full (`maxPendingWrites`): the caller refuses the task.
   */
  async write(key: string, kept: KeptWrite): Promise<void> {
    if (this.#up && this.#kept.size === 0) {
      try {
        await this.#attempt(kept);
        return;
      } catch (error) {
        this.failed(error);
      }
    }
    this.keep(key, kept);
  }

  /** Keeps a write for when Redis is back (replacing one kept for the same key). */
  keep(key: string, kept: KeptWrite): void {
    if (!this.#kept.has(key) && this.#kept.size >= this.#options.maxPendingWrites)
      throw new JsonRpcError(
        -32603,
        `the task store is unavailable and ${this.#kept.size} writes already wait for it; retry once Redis is back`,
        { cause: TASK_STORE_UNAVAILABLE },
      );
    this.#kept.delete(key); // re-inserted last: the newest value of a key is written after older keys
    this.#kept.set(key, kept);
    if (this.#up) this.kick();
    else this.#schedule();
  }

  /** The write kept for `key`, if one waits. */
  kept(key: string): KeptWrite | undefined {
    return this.#kept.get(key);
  }

  /** Writes what is kept now (Redis answered again, or reconnected); once all is in, Redis is up. */
  kick(): void {
    if (this.#closed || this.#flushing) return;
    this.#flushing = this.#flush().finally(() => {
      this.#flushing = undefined;
    });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
  }

  async #flush(): Promise<void> {
    let written = 0;
    for (const [key, kept] of [...this.#kept]) {
      if (Date.now() >= kept.expiresAt) {
        this.#kept.delete(key);
        this.#options.onStore({ type: 'store-write-dropped', taskId: kept.taskId });
        continue;
      }
      try {
        await this.#attempt(kept);
      } catch (error) {
        this.failed(error);
        return;
      }
      // A newer value kept meanwhile stays for the next pass.
      if (this.#kept.get(key) === kept) this.#kept.delete(key);
      written++;
      if (!this.#up) this.#writtenAfter++;
    }
    if (this.#kept.size > 0) return this.#schedule();
    if (this.#up) return;
    // Nothing kept is left: up once a command has gone through (the flush's own, or a probe).
    if (written === 0) {
      try {
        await this.bounded(['PING']);
      } catch (error) {
        return this.failed(error);
      }
    }
    if (this.#kept.size > 0) return this.#schedule();
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#up = true;
    this.#upSince = Date.now();
    const downMs = this.#upSince - this.#downSince;
    this.#options.onStore({ type: 'store-up', downMs, writtenAfter: this.#writtenAfter });
  }

  #attempt(kept: KeptWrite): Promise<void> {
    return kept.write(Math.max(1, kept.expiresAt - Date.now()));
  }

  /** Tries again in `retryMs` (one timer at most): Redis may be back without telling (a resumed process). */
  #schedule(): void {
    if (this.#closed || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.kick();
    }, this.#options.retryMs);
    this.#retry.unref?.();
  }

  /** The command, or a rejection once `commandTimeoutMs` passed without an answer (health untouched). */
  bounded(args: readonly string[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const sentAt = Date.now();
      const timer = setTimeout(() => {
        const ms = this.#options.commandTimeoutMs;
        // Redis was already away when the command went: the outage is dated from then.
        reject(Object.assign(new Error(`Redis did not answer ${args[0]} within ${ms} ms`), { sentAt }));
      }, this.#options.commandTimeoutMs);
      this.#send(args).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}
