export { connectLifecycle, Endpoint, serveLifecycle } from './packages/core/dist/index.js';
