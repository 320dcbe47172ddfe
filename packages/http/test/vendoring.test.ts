import { describe, expect, it } from 'vitest';
import {
  CLIENT_PATHS,
  compileVendored,
  RESOLUTIONS,
  VENDORED_CLIENT,
  VENDORED_CORE,
} from '../../core/test/support/vendor-check.js';

// A browser host vendors core, client and http together (README, Vendoring): the `src` folders copied into
// one strict app, the vendored http finding the vendored core and client through a `paths` mapping. What a browser needs
// (client/, server/, shared/, fetch.ts) compiles with no Node types; node/ and index.ts need @types/node.
const CORE = { from: 'packages/core/src', to: VENDORED_CORE };
const CLIENT = { from: 'packages/client/src', to: VENDORED_CLIENT };
const HTTP = 'src/vendor/inflight-http';

describe('vendored http source, with vendored core and client', () => {
  for (const resolution of Object.keys(RESOLUTIONS) as (keyof typeof RESOLUTIONS)[]) {
    it(`the Fetch API part compiles with zero errors under a strict app tsconfig, no Node types (${resolution})`, () => {
      const folders = [CORE, CLIENT, { from: 'packages/http/src', to: HTTP, leaveOut: ['node', 'index.ts'] }];
      expect(compileVendored({ folders, resolution, paths: CLIENT_PATHS })).toEqual([]);
    }, 120_000);
  }

  it('all of src, node/ included, compiles with zero errors with @types/node (NodeNext)', () => {
    const folders = [CORE, CLIENT, { from: 'packages/http/src', to: HTTP }];
    expect(
      compileVendored({ folders, resolution: 'NodeNext', paths: CLIENT_PATHS, types: ['node'] }),
    ).toEqual([]);
  }, 120_000);

  it('control: without the paths mapping the vendored http does not find core', () => {
    const folders = [CORE, CLIENT, { from: 'packages/http/src', to: HTTP, leaveOut: ['node', 'index.ts'] }];
    const errors = compileVendored({ folders, resolution: 'Bundler' });
    expect(errors.some((line) => line.includes("'@mcp-inflight/core'"))).toBe(true);
  }, 120_000);
});
