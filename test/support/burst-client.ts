/**
 * A webhook sender in a process of its own, for deliveries that really arrive together:
 * `<port> <path> <count>` opens `count` connections, prints `READY` once all are up,
 * and when a line arrives on stdin writes one POST on each, all in one turn of its event
 * loop. It prints one JSON line, `[{ status, body }]` in delivery order, and exits.
 * Delivery `i` carries `x-request-id: burst-<i>` and the body `{"n":i}`.
 */
import net from 'node:net';

const [port, route, count] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4])];

interface Answer {
  status: number;
  body: unknown;
}

/** One HTTP/1.1 answer with a Content-Length body, read whole from `socket`. */
function answerOn(socket: net.Socket): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const head = text.indexOf('\r\n\r\n');
      if (head < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head))?.[1] ?? NaN);
      if (Buffer.byteLength(text.slice(head + 4)) < length) return;
      socket.end();
      resolve({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(head + 4)) as unknown });
    });
    socket.once('error', reject);
  });
}

const sockets = await Promise.all(Array.from({ length: count }, () => new Promise<net.Socket>((resolve, reject) => {
  const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
  socket.once('error', reject);
})));
const answers = Promise.all(sockets.map(answerOn));
process.stdout.write('READY\n');
process.stdin.once('data', () => {
  sockets.forEach((socket, i) => {
    const body = JSON.stringify({ n: i });
    socket.write(`POST ${route} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nx-request-id: burst-${i}\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
  });
  void answers.then((all) => {
    process.stdout.write(`${JSON.stringify(all)}\n`);
    process.exit(0);
  });
});
