// Load generator run as its own process by the realtime tests: COUNT connections to URL, each sending a chat
// message every INTERVAL_MS. Prints "ready" once all are open, then every second the frames received.
/* global setInterval */
import { WebSocket } from 'ws';

const [url, count, intervalMs] = [
  process.env.URL,
  Number(process.env.COUNT),
  Number(process.env.INTERVAL_MS),
];
const frame = JSON.stringify({ type: 'message', data: { content: 'x'.repeat(200) } });
let received = 0;

async function main() {
  const sockets = [];
  for (let i = 0; i < count; i += 1) {
    const socket = new WebSocket(url);
    socket.on('message', () => (received += 1));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    sockets.push(socket);
  }
  process.stdout.write('ready\n');
  for (const socket of sockets) setInterval(() => socket.send(frame), intervalMs);
  setInterval(() => {
    process.stdout.write(`received ${received}\n`);
    received = 0;
  }, 1000);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
