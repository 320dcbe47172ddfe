import { defineTool, type Tool } from '@mcp-inflight/server';
import * as z from 'zod';

// The fixture of the conformance suite's http-custom-header-server-validation scenario (2026-07-28,
// SEP-2243): a tool with a parameter mirrored into an `Mcp-Param-Region` header, which the HTTP server
// checks against the body before the tool runs. Served only with `--conformance`.

/** `test_custom_header`: echoes its region, which 2026-07-28 HTTP clients send as `Mcp-Param-Region`. */
export function paramHeaderTools(): Tool[] {
  return [
    defineTool({
      name: 'test_custom_header',
      description: 'Echoes region, mirrored into the Mcp-Param-Region header (conformance).',
      input: z.object({
        region: z.string().meta({ 'x-mcp-header': 'Region', description: 'Where to route the call.' }),
        query: z.string().optional(),
      }),
      run: ({ region }) => `region ${region}`,
    }),
  ];
}
