export { Endpoint, serveLifecycle, connectLifecycle } from './packages/core/dist/index.js';
