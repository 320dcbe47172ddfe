import { setTimeout as sleep } from 'node:timers/promises';
import { JsonRpcError, type RequestContext } from '@mcp-inflight/core';
import { defineTool, type Tool } from '@mcp-inflight/server';
import { elicit, inputRequired, inputRetryOf } from '@mcp-inflight/server/input';
import * as z from 'zod';

// The tools the conformance suite's tasks-extension scenarios call by name (`--conformance --tasks`):
// `greet` answers directly; the others run as tasks when the client declared the extension [T24].
// `confirm_delete` and `multi_input` ask for input while their task runs (tasks-mrtr-input);
// `test_tool_with_task` asks before its task exists, then runs as one (tasks-mrtr-composition [T36]).

const taskSupported = { listing: { execution: { taskSupport: 'optional' } } } as const;

/** The tools that may run as tasks, for `serveTasks`' `taskable`. */
const TASK_TOOL_NAMES: ReadonlySet<string> = new Set([
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
]);

/** Those that only run as tasks (tasks-required-task-error), for `serveTasks`' `required`. */
export const TASK_ONLY_TOOL_NAMES: ReadonlySet<string> = new Set(['failing_job', 'test_tool_with_task']);

/**
 * Whether a call becomes a task, for `serveTasks`' `taskable`: the task tools always, and
 * `test_tool_with_task` once its input has been given (its first round answers input_required [T36]).
 */
export function taskableFixture(params: Record<string, unknown> | undefined): boolean {
  const name = String(params?.name);
  if (name === 'test_tool_with_task') return params?.inputResponses !== undefined;
  return TASK_TOOL_NAMES.has(name);
}

/** The answer to `key`, when the client accepted: its content; else `undefined`. */
function accepted(ctx: RequestContext, key: string): Record<string, unknown> | undefined {
  const answer = inputRetryOf(ctx.params).inputResponses?.[key];
  return answer?.action === 'accept' ? ((answer.content ?? {}) as Record<string, unknown>) : undefined;
}

/** Whether the round brought answers at all (the work's second run). */
const answered = (ctx: RequestContext): boolean => inputRetryOf(ctx.params).inputResponses !== undefined;

/**
 * The tasks-extension scenarios' fixture tools: `greet` (direct), `slow_compute` (sleeps `seconds`,
 * honours cancellation), `failing_job` (a tool error after about 1 s; only as a task), `protocol_error_job` (a protocol
 * error, so its task fails), `confirm_delete` and `multi_input` (ask for input while their tasks wait),
 * `test_tool_with_task` (asks, then runs as a task).
 *
 * @example
 * ```ts
 * import { taskFixtureTools } from './conformance-tasks.js';
 * taskFixtureTools().map((t) => t.name); // ['greet', 'slow_compute', 'failing_job', ...]
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
    defineTool({
      name: 'confirm_delete',
      description: 'Asks to confirm deleting `filename` while its task waits, then answers (conformance).',
      input: z.object({ filename: z.string().max(200) }),
      run: ({ filename }, ctx) => {
        if (!answered(ctx))
          return inputRequired({
            inputRequests: {
              confirm: elicit(`Delete ${filename}?`, { confirm: { type: 'boolean' } }, ['confirm']),
            },
          });
        return accepted(ctx, 'confirm')?.confirm === true ? `deleted ${filename}` : `kept ${filename}`;
      },
      ...taskSupported,
    }),
    defineTool({
      name: 'multi_input',
      description: 'Asks two things at once while its task waits, then answers both (conformance).',
      input: z.object({}),
      run: (_args, ctx) => {
        if (!answered(ctx))
          return inputRequired({
            inputRequests: {
              name: elicit('Your name?', { name: { type: 'string' } }, ['name']),
              confirm: elicit('Proceed?', { confirm: { type: 'boolean' } }, ['confirm']),
            },
          });
        const name = accepted(ctx, 'name')?.name;
        return `name: ${String(name)}, confirmed: ${accepted(ctx, 'confirm')?.confirm === true}`;
      },
      ...taskSupported,
    }),
    defineTool({
      name: 'test_tool_with_task',
      description:
        'Asks for user_name first (input_required), then runs as a task greeting it (conformance).',
      input: z.object({}),
      run: (_args, ctx) => {
        const given = accepted(ctx, 'user_name');
        if (given === undefined)
          return inputRequired({
            inputRequests: { user_name: elicit('Your name?', { name: { type: 'string' } }, ['name']) },
          });
        return `Hello, ${String(given.name)}!`;
      },
      listing: { execution: { taskSupport: 'required' } },
    }),
  ];
}
