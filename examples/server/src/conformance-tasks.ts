import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcError } from '@mcp-inflight/core';
import { defineTool, type Tool } from '@mcp-inflight/core/tools';
import * as z from 'zod';

// The tools the conformance suite's tasks-extension scenarios call by name (`--conformance --tasks`):
// `greet` answers directly; the three others run as tasks when the client declared the extension [T24].

const taskSupported = { listing: { execution: { taskSupport: 'optional' } } } as const;

/** The tools that may run as tasks, for `serveTasks`' `taskable`. */
export const TASK_TOOL_NAMES: ReadonlySet<string> = new Set([
  'slow_compute',
  'failing_job',
  'protocol_error_job',
]);

/** The one that only runs as a task (tasks-required-task-error), for `serveTasks`' `required`. */
export const TASK_ONLY_TOOL_NAMES: ReadonlySet<string> = new Set(['failing_job']);

/**
 * The tasks-extension scenarios' fixture tools: `greet` (direct), `slow_compute` (sleeps `seconds`,
 * honours cancellation), `failing_job` (a tool error after about 1 s; only as a task), `protocol_error_job` (a protocol
 * error, so its task fails).
 *
 * @example
 * ```ts
 * import { taskFixtureTools } from './conformance-tasks.js';
 * taskFixtureTools().map((t) => t.name); // ['greet', 'slow_compute', 'failing_job', 'protocol_error_job']
 * ```
 */
export function taskFixtureTools(): Tool[] {
  return [
    defineTool({
      name: 'greet',
      description: 'Answers Hello, {name}! directly (conformance).',
      input: z.object({ name: z.string().max(200) }),
      run: ({ name }) => `Hello, ${name}!`,
    }),
    defineTool({
      name: 'slow_compute',
      description: 'Sleeps `seconds`, then answers; may run as a task (conformance).',
      input: z.object({
        seconds: z.number().min(0).max(600).optional(),
        label: z.string().max(200).optional(),
      }),
      run: async ({ seconds = 1, label = 'slow_compute' }, ctx) => {
        // A tasks/cancel aborts the signal, so the task settles to cancelled, not completed.
        await sleep(seconds * 1000, undefined, { signal: ctx.signal });
        return `${label}: done after ${seconds} s`;
      },
      ...taskSupported,
    }),
    defineTool({
      name: 'failing_job',
      description: 'Fails with a tool error (isError) after about 1 s; may run as a task (conformance).',
      input: z.object({}),
      run: async (_args, ctx) => {
        await sleep(1000, undefined, { signal: ctx.signal });
        return { content: [{ type: 'text', text: 'failing_job failed, as it always does' }], isError: true };
      },
      listing: { execution: { taskSupport: 'required' } },
    }),
    defineTool({
      name: 'protocol_error_job',
      description: 'Ends in a protocol error (-32603), so its task fails; may run as a task (conformance).',
      input: z.object({}),
      run: () => {
        throw new JsonRpcError(-32603, 'protocol_error_job: an internal error, on purpose');
      },
      ...taskSupported,
    }),
  ];
}
