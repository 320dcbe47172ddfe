// Which way a host's task-augmented tools/call is relayed, and the leg the call relay runs it on.
import type { RequestContext } from '@mcp-inflight/core';
import {
  createdTaskOf,
  declaresTasksExtension,
  hasTask,
  isLegacy,
  LATEST_LEGACY_REVISION,
  MODERN_REVISION,
  TASKS_EXTENSION,
  type TaskRouteHooks,
  type TaskState,
  withTasksExtension,
} from '@mcp-inflight/core/adapter';
import type { UpstreamConnection } from './upstream-link.js';

/** What the call relay needs to relay one host call as a task (see `TaskTable.legFor`). */
export interface TaskLeg {
  /** The upstream params: the `task` the host asked for, or the extension declared (2026-07-28). */
  params(relayed: Record<string, unknown> | undefined): Record<string, unknown>;
  /** Keeps the upstream progress route past the CreateTaskResult. */
  readonly taskRoute: TaskRouteHooks;
  /** The upstream's answer as the host must see it: a mapped task, or a plain result. */
  result(result: unknown): unknown | Promise<unknown>;
}

/**
 * How a host's task is relayed: `legacy` (2025-11-25 `params.task` on both legs), `modern` (the
 * 2026-07-28 tasks extension on both legs), `bridged` (a 2025-11-25 host on a 2026-07-28 upstream).
 */
export type TaskShape = 'legacy' | 'modern' | 'bridged';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The shape of a host's `tools/call` as a task, when both legs speak tasks (a 2025-11-25 host asking with
 * `params.task` of a 2025-11-25 upstream offering `tasks.requests.tools.call`; a 2026-07-28 host
 * declaring the extension to a 2026-07-28 upstream declaring it; a 2025-11-25 host asking a 2026-07-28
 * upstream, bridged); `undefined` relays it plainly.
 */
export function taskShapeOf(
  params: Record<string, unknown> | undefined,
  ctx: RequestContext,
  upstream: UpstreamConnection,
): TaskShape | undefined {
  const caps = upstream.identity.capabilities as Record<string, Record<string, unknown> | undefined>;
  const modernUpstream = upstream.revision !== undefined && !isLegacy(upstream.revision);
  const upstreamExtension = isObject(caps.extensions?.[TASKS_EXTENSION]);
  if (ctx.revision === '2025-11-25' && hasTask(params)) {
    const requests = caps.tasks?.requests as Record<string, Record<string, unknown>> | undefined;
    if (upstream.revision === '2025-11-25' && isObject(requests?.tools?.call)) return 'legacy';
    if (modernUpstream && upstreamExtension) return 'bridged';
    return undefined;
  }
  if (!isLegacy(ctx.revision) && modernUpstream && upstreamExtension && declaresTasksExtension(ctx.meta))
    return 'modern';
  return undefined;
}

/** The upstream params of a task call: the host's `task` kept (2025-11-25), or the extension declared. */
export function upstreamTaskParams(
  shape: TaskShape,
  relayed: Record<string, unknown> | undefined,
  hostParams: Record<string, unknown> | undefined,
  upstream: UpstreamConnection,
): Record<string, unknown> {
  if (shape === 'legacy') return { ...relayed, task: hostParams?.task ?? {} };
  const { task: _task, ...rest } = relayed ?? {};
  return withTasksExtension(rest, upstream.endpoint.clientCapabilities);
}

/** The task the upstream's answer made, read in the upstream leg's shape (core's shared reader). */
export function upstreamTaskOf(result: unknown, shape: TaskShape): TaskState | undefined {
  return createdTaskOf(result, shape === 'legacy' ? LATEST_LEGACY_REVISION : MODERN_REVISION);
}
