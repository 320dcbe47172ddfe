import { checkInputRequired, isInputRequired } from '@mcp-inflight/client/input';
import type {
  CallToolResult,
  Clock,
  HandlerLimits,
  RequestContext,
  RequestHandler,
} from '@mcp-inflight/core';
import { DeadlineController, JsonRpcError, JsonRpcErrorCode } from '@mcp-inflight/core';
import type { JsonRpcErrorObject } from '@mcp-inflight/core/adapter';
import { errorResponseFor, isLegacy, nap } from '@mcp-inflight/core/adapter';
import type { ServedTask } from './served-task.js';
import { awaitTaskInput } from './task-input.js';
import type { TaskOutcome } from './task-record.js';
import type { SharedTaskStore } from './task-store.js';

/** The most times a task's work may ask for input before the task fails. */
const TASK_INPUT_ROUNDS = 32;

/** A task's work: the call that does it, the request that asked for it, and where its outcome goes. */
export interface TaskWorkOptions {
  /** The handler that does the work (`serveTools`' `call`). */
  call: RequestHandler;
  /** The request's params, `task` included (it is taken out before the work sees them). */
  params: Record<string, unknown> | undefined;
  /** The request that made the task; its progress route stays open until the task ends (2025-11-25). */
  ctx: RequestContext;
  /** What this instance keeps of the task: the abort a cancel or the TTL fires. */
  served: ServedTask;
  /** Where the task's changes and its end are written. */
  store: SharedTaskStore;
  /** The endpoint's clock. */
  clock: Clock;
  /** The task's granted lifetime: its end is written again while the store is away, until then. */
  ttlMs: number;
}

/** Runs the work in the background, under the task's own signal; its outcome ends the task. */
export function runTaskWork(options: TaskWorkOptions): void {
  new TaskWork(options).start();
}

/**
 * One task's work while it runs: the deadlines it made (the task's own and each `ctx.limit()` scope, all
 * disposed at its end) and the params of its current round.
 */
class TaskWork {
  readonly #options: TaskWorkOptions;
  readonly #legacy: boolean;
  readonly #deadline: DeadlineController;
  readonly #scopes: DeadlineController[];
  #roundParams: Record<string, unknown> | undefined;

  constructor(options: TaskWorkOptions) {
    this.#options = options;
    this.#legacy = isLegacy(options.ctx.revision);
    this.#deadline = new DeadlineController({ clock: options.clock, parent: options.served.abort.signal });
    this.#scopes = [this.#deadline];
    this.#roundParams = withoutTask(options.params);
  }

  start(): void {
    const { ctx, served, store, clock, ttlMs } = this.#options;
    const endsBy = clock.now() + ttlMs;
    const finish = (outcome: TaskOutcome) =>
      persist(() => store.finishTask(served.taskId, outcome), clock, endsBy);
    this.#rounds()
      .then(
        (result) => {
          served.settled = true;
          // 2025-11-25: a tool result with isError is a failed task; 2026-07-28: it is completed [T21 T22].
          const failed = this.#legacy && (result as CallToolResult | undefined)?.isError === true;
          return finish({ status: failed ? 'failed' : 'completed', result });
        },
        (error: unknown) => {
          served.settled = true;
          const wire = errorResponseFor(0, error) as { error: JsonRpcErrorObject };
          return finish({ status: 'failed', error: wire.error, statusMessage: wire.error.message });
        },
      )
      .catch(noop) // a store away past the TTL: the TTL ends the task
      .finally(() => {
        for (const scope of this.#scopes) scope.dispose();
        ctx.endProgress();
      });
  }

  /**
   * 2026-07-28: work that answers input_required, as a multi round-trip tool does, puts the task in
   * input_required; once tasks/update has answered every request it runs again with the answers and its
   * requestState, as a retry would [T31 T34]. The requestState never leaves the server here.
   */
  async #rounds(): Promise<unknown> {
    const { call, served, store } = this.#options;
    const base = this.#roundParams;
    for (let round = 1; ; round++) {
      const output = await call(this.#roundParams, this.#contextOf(this.#deadline));
      if (this.#legacy || !isInputRequired(output)) return output;
      if (round > TASK_INPUT_ROUNDS)
        throw new JsonRpcError(JsonRpcErrorCode.InternalError, 'the task kept asking for input');
      const asked = checkInputRequired('tools/call', output);
      const answers = await awaitTaskInput(served, store, asked, this.#deadline.signal);
      const { inputResponses: _i, requestState: _r, ...rest } = base ?? {};
      this.#roundParams = {
        ...rest,
        ...(Object.keys(answers).length > 0 ? { inputResponses: answers } : {}),
        ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
      };
    }
  }

  /** The context the work runs with under `scope`: the task's signal, its progress, its input waits. */
  #contextOf(scope: DeadlineController): RequestContext {
    const { ctx, store } = this.#options;
    const legacy = this.#legacy;
    const taskId = this.#options.served.taskId;
    return {
      id: ctx.id,
      method: ctx.method,
      revision: ctx.revision,
      params: this.#roundParams,
      get signal() {
        return scope.signal;
      },
      progressToken: legacy ? ctx.progressToken : undefined,
      meta: ctx.meta,
      // 2025-11-25: the task is input_required while its work waits on the requestor [T37]; a 2026-07-28
      // task's work asks by returning input_required instead.
      task: legacy
        ? {
            taskId,
            onInputWait: (waiting) =>
              void store.updateTask(taskId, { status: waiting ? 'input_required' : 'working' }).catch(noop),
          }
        : undefined,
      deadline: scope,
      progress(progress, total, message) {
        scope.touch();
        if (legacy) return ctx.progress(progress, total, message);
        // No progress on 2026-07-28 tasks [T13]: the requestor sees the step as the status message.
        const statusMessage = message ?? (total === undefined ? `${progress}` : `${progress}/${total}`);
        void store.updateTask(taskId, { statusMessage }).catch(noop);
        return true;
      },
      limit: (limits: HandlerLimits) => {
        const child = new DeadlineController({
          idleMs: limits.idleMs ?? Number.POSITIVE_INFINITY,
          ceilingMs: limits.ceilingMs ?? Number.POSITIVE_INFINITY,
          parent: scope,
        });
        this.#scopes.push(child);
        return this.#contextOf(child);
      },
      endProgress: () => ctx.endProgress(),
    };
  }
}

/**
 * Writes a task's end, again and again while the store is away (Redis restarting), until the task's TTL
 * would have ended it anyway: a finished result is not lost to an outage shorter than the TTL.
 */
async function persist<T>(write: () => Promise<T>, clock: Clock, endsBy: number): Promise<T> {
  for (let waitMs = 50; ; waitMs = Math.min(waitMs * 2, 1_000)) {
    try {
      return await write();
    } catch (error) {
      if (clock.now() + waitMs >= endsBy) throw error;
      await nap(waitMs, clock).slept;
    }
  }
}

function withoutTask(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!params || !('task' in params)) return params;
  const { task: _task, ...rest } = params;
  return rest;
}

function noop(): void {}
