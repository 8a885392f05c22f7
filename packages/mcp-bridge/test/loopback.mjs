// Preloaded (`node --import ./loopback.mjs server.js`) into test servers that listen on a bare
// port: binds them to 127.0.0.1 instead of every interface, and prints the port they got on
// stderr as `LISTENING_PORT=<n>`, so a test can start them on port 0 without racing for a port.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if ((typeof port === 'number' || typeof port === 'string') && typeof args[1] !== 'string') {
    args.splice(1, 0, '127.0.0.1');
  }
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object') {
      process.stderr.write(`LISTENING_PORT=${address.port}\n`);
    }
  });
  return listen.apply(this, args);
};
