/**
 * A webhook sender in a process of its own, for deliveries that really arrive together:
 * `<port> <path> <count> <authorization>` opens `count` connections, prints `READY` once all are up,
 * and when a line arrives on stdin sends one POST on each (node:http over those open
 * sockets), all in one turn of its event loop. It prints one JSON line,
 * `[{ status, body }]` in delivery order, and exits.
 * Delivery `i` carries `x-request-id: burst-<i>`, the `authorization` header given and the body
 * `{"n":i}`. In testkit/ so that it is built: started from dist/, it needs no tsx.
 */
import http from 'node:http';
import net from 'node:net';

const [port, route, count, authorization] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4]), process.argv[5]!];

interface Answer {
  status: number;
  body: unknown;
}

/** POST delivery `i` on `socket`, already connected; its answer, read whole. */
function deliver(socket: net.Socket, i: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ n: i });
    const req = http.request({
      host: '127.0.0.1', port, path: route, method: 'POST', createConnection: () => socket,
      headers: { authorization, 'content-type': 'application/json', 'x-request-id': `burst-${i}`, 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => void (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

const sockets = await Promise.all(Array.from({ length: count }, () => new Promise<net.Socket>((resolve, reject) => {
  const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
  socket.once('error', reject);
})));
process.stdout.write('READY\n');
process.stdin.once('data', () => {
  void Promise.all(sockets.map(deliver)).then((all) => {
    process.stdout.write(`${JSON.stringify(all)}\n`);
    process.exit(0);
  });
});
