// Reference for the router bench: the least work a node process can do to stand between a client
// and the upstream — each client connection gets its own upstream connection and the bytes are
// relayed as they come (no HTTP parsing, routing, headers or stats). Its CPU per request is node's
// own floor for one proxied exchange (four socket wake-ups, two reads and two writes), so the
// bench can split the router's gap to nginx into node's share and Orrery's.
import net from 'node:net';

const upstreamPort = Number(process.argv[2]);
const server = net.createServer((client) => {
  client.setNoDelay(true);
  const upstream = net.connect({ port: upstreamPort, host: '127.0.0.1', noDelay: true });
  client.on('data', (d) => upstream.write(d));
  upstream.on('data', (d) => client.write(d));
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on('close', close);
  upstream.on('close', close);
  client.on('error', close);
  upstream.on('error', close);
});
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
