// Preload for running @modelcontextprotocol/conformance 0.1.16 on Node 20: it imports `globSync` from
// `fs`, which Node added in 22. Use with `node --import <this file> …`. On Node 22+ it does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./fs-glob-hooks.mjs', import.meta.url);
