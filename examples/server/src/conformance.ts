import { setTimeout as sleep } from 'node:timers/promises';
import type { Endpoint, TransportKind } from '@mcp-inflight/core';
import { createServer, defineTool, type Publisher, type Tool, ToolList } from '@mcp-inflight/server';
import {
  type ServeTasksOptions,
  type SharedTaskStore,
  serveTasks,
  taskCapabilities,
} from '@mcp-inflight/server/tasks';
import * as z from 'zod';
import {
  conformancePrompts,
  conformanceResources,
  contentTools,
  promptChangeTool,
  withLogging,
} from './conformance-content.js';
import { paramHeaderTools } from './conformance-headers.js';
import { inputRequiredTools } from './conformance-input.js';
import { TASK_ONLY_TOOL_NAMES, taskableFixture, taskFixtureTools } from './conformance-tasks.js';
import { exampleTaskable, exampleTools, type WorkCounters } from './tools.js';

// The tools `@modelcontextprotocol/conformance` 0.1.16 calls by name in its server scenarios
// (tools-call-simple-text, tools-call-error, tools-call-with-progress), and the hook its 2026-07-28
// server-stateless scenario calls to change the tool list; with those of its input-required-result
// scenarios (conformance-input.ts) and the rest of its fixtures, prompts and resources
// (conformance-content.ts). Served only with `--conformance`, set up by one createServer call.

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
 * The example server plus the conformance suite's tools, prompts and resources, each a changing list
 * shared by every endpoint: `test_trigger_tool_change` and `test_trigger_prompt_change` (2026-07-28
 * server-stateless) change them, which `listenStreams` publish as list changes to the listen streams that
 * asked for them. With `tasks` (the process's store, `--tasks`), the tasks-extension fixture tools run as
 * tasks.
 */
export function conformanceServer(
  counters: WorkCounters,
  listenStreams: Publisher,
  tasks?: SharedTaskStore,
  transport: TransportKind = 'stdio',
): (endpoint: Endpoint) => void {
  const prompts = conformancePrompts(listenStreams);
  const resources = conformanceResources(listenStreams);
  const tools: ToolList = new ToolList(
    [
      ...exampleTools(counters, tasks !== undefined, transport),
      ...CONFORMANCE_TOOLS,
      ...inputRequiredTools(),
      ...contentTools(),
      ...paramHeaderTools(),
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
      promptChangeTool(prompts),
    ],
    { listenStreams },
  );
  // Capabilities from what it serves (tools, prompts, resources, each changing; completions), plus
  // logging and, with `--tasks`, the tasks extension.
  const server = createServer({
    name: 'mcp-inflight-example-server',
    version: '0.1.0',
    tools,
    prompts,
    resources,
    capabilities: { logging: {}, ...(tasks ? taskCapabilities() : {}) },
  });
  const taskOptions: ServeTasksOptions = {
    taskable: (params) => exampleTaskable(params) || taskableFixture(params),
    required: (params) => TASK_ONLY_TOOL_NAMES.has(String(params?.name)),
  };
  return (endpoint) => {
    const served = server.serve(endpoint);
    if (!served) return;
    const call = withLogging(endpoint, served);
    endpoint.setRequestHandler('tools/call', call);
    // Tasks outlive a stateless request, so the store is the process's.
    if (tasks) serveTasks(endpoint, tasks, call, taskOptions);
  };
}
