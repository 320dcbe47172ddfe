// The three tools the conformance suite calls by name (tools-call-simple-text, tools-call-error,
// tools-call-with-progress), registered on an official SDK McpServer (v1 or v2: both take
// registerTool(name, config, handler)). `extraOf` maps the SDK's handler context to
// { signal, meta, notify } so one definition serves both.
import { setTimeout as sleep } from 'node:timers/promises';

const text = (value) => ({ content: [{ type: 'text', text: value }] });

export function registerSuiteTools(server, extraOf) {
  server.registerTool('test_simple_text', { description: 'Returns a fixed text.' }, async () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool(
    'test_error_handling',
    { description: 'Always fails with isError: true.' },
    async () => ({
      ...text('This tool intentionally returns an error for testing'),
      isError: true,
    }),
  );
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart.' },
    async (extra) => {
      const { signal, meta, notify } = extraOf(extra);
      const token = meta?.progressToken;
      const report = (progress) =>
        token === undefined
          ? undefined
          : notify({
              method: 'notifications/progress',
              params: { progressToken: token, progress, total: 100 },
            });
      await report(0);
      await sleep(50, undefined, { signal });
      await report(50);
      await sleep(50, undefined, { signal });
      await report(100);
      return text('Progress tool finished after 3 steps.');
    },
  );
}
