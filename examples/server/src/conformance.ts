import { setTimeout as sleep } from 'node:timers/promises';
import type { Endpoint, TransportKind } from '@mcp-inflight/core';
import type { ServeTasksOptions, SharedTaskStore } from '@mcp-inflight/core/tasks';
import { defineTool, type Publisher, type Tool, ToolList } from '@mcp-inflight/core/tools';
import * as z from 'zod';
import { inputRequiredTools } from './conformance-input.js';
import { TASK_ONLY_TOOL_NAMES, taskableFixture, taskFixtureTools } from './conformance-tasks.js';
import { exampleTaskable, exampleTools, serveExample, type WorkCounters } from './tools.js';

// The tools `@modelcontextprotocol/conformance` 0.1.16 calls by name in its server scenarios
// (tools-call-simple-text, tools-call-error, tools-call-with-progress), and the hook its 2026-07-28
// server-stateless scenario calls to change the tool list; with those of its input-required-result
// scenarios (conformance-input.ts). Served only with `--conformance`.

const noInput = z.object({});

const CONFORMANCE_TOOLS: Tool[] = [
  defineTool({
    name: 'test_simple_text',
    description: 'Returns a fixed text (conformance).',
    input: noInput,
    run: () => 'This is a simple text response for testing.',
  }),
  defineTool({
    name: 'test_error_handling',
    description: 'Always fails with isError: true (conformance).',
    input: noInput,
    // A tool failure is a result with isError, not a JSON-RPC error: the model should see it.
    run: () => ({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    }),
  }),
  defineTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart (conformance).',
    input: noInput,
    run: async (_args, ctx) => {
      ctx.progress(0, 100);
      await sleep(50, undefined, { signal: ctx.signal });
      ctx.progress(50, 100);
      await sleep(50, undefined, { signal: ctx.signal });
      ctx.progress(100, 100); // flushed before the result, whatever the coalescing interval
      return 'Progress tool finished after 3 steps.';
    },
  }),
];

/** The tool `test_trigger_tool_change` adds, then removes, so the list really changes each time. */
const CHANGING_TOOL = defineTool({
  name: 'test_changing_tool',
  description: 'Comes and goes with test_trigger_tool_change (conformance).',
  input: noInput,
  run: () => 'here for now',
});

/**
 * The example server plus the conformance suite's tools, as one changing list shared by every endpoint:
 * `test_trigger_tool_change` (2026-07-28 server-stateless) changes it, which `listeners` publish as
 * `notifications/tools/list_changed` to the listen streams that asked for it. With `tasks` (the process's
 * store, `--tasks`), the tasks-extension fixture tools run as tasks.
 */
export function conformanceServer(
  counters: WorkCounters,
  listeners: Publisher,
  tasks?: SharedTaskStore,
  transport: TransportKind = 'stdio',
): (endpoint: Endpoint) => void {
  const tools: ToolList = new ToolList(
    [
      ...exampleTools(counters, tasks !== undefined, transport),
      ...CONFORMANCE_TOOLS,
      ...inputRequiredTools(),
      // With `--tasks`, the tasks-extension scenarios' tools (conformance-tasks.ts).
      ...(tasks ? taskFixtureTools() : []),
      defineTool({
        name: 'test_trigger_tool_change',
        description: 'Adds or removes test_changing_tool, which changes the tool list (conformance).',
        input: noInput,
        run: () => {
          if (!tools.remove(CHANGING_TOOL.name)) tools.add(CHANGING_TOOL);
          return 'the tool list changed';
        },
      }),
    ],
    { listeners },
  );
  const taskOptions: ServeTasksOptions = {
    taskable: (params) => exampleTaskable(params) || taskableFixture(params),
    required: (params) => TASK_ONLY_TOOL_NAMES.has(String(params?.name)),
  };
  return (endpoint) => serveExample(endpoint, tools, tasks, taskOptions);
}
