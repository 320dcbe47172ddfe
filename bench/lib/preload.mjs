// Loaded with `node --import` into every HTTP server and proxy the benchmarks start (ours, the SDK's,
// mcp-proxy), so all of them are treated alike:
// - the port a server listens on is written to stderr as `BENCH-LISTENING <port>` (they all bind port 0);
// - the process exits when its stdin closes: the benchmark that started it holds the other end, so a
//   benchmark that dies, however it dies, leaves no server behind. (Only for processes that do not speak
//   MCP on stdin: HTTP servers and proxies listening on HTTP.)
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') process.stderr.write(`BENCH-LISTENING ${address.port}\n`);
  });
  return listen.apply(this, args);
};

process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.stdin.unref?.();
