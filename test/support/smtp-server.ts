import { simpleParser } from 'mailparser';
import { createServer } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients (RCPT TO). */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps every message it accepts, parsed with
 * `mailparser`. It can be stopped and started again on the same port, to show that the service retries.
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  private server: SMTPServer | null = null;
  private readonly waiters: Array<() => void> = [];

  private constructor(readonly port: number) {}

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** A server on a free port; `listening: false` reserves the port without answering on it yet. */
  static async create(options: { listening?: boolean } = {}): Promise<TestSmtpServer> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const smtp = new TestSmtpServer(port);
    if (options.listening !== false) await smtp.start();
    return smtp;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((parsed) => {
            this.received.push({
              to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
            });
            this.waiters.splice(0).forEach((wake) => wake());
            callback();
          })
          .catch(callback);
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The messages to `address` so far. */
  to(address: string): ReceivedMail[] {
    return this.received.filter(
      (mail) => mail.to.includes(address.toLowerCase()) || mail.to.includes(address),
    );
  }

  /** Waits until `count` messages to `address` have arrived (or fails after `timeoutMs`), and gives them. */
  async waitFor(address: string, count = 1, timeoutMs = 15_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.to(address).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`expected ${count} e-mail(s) to ${address}, got ${this.to(address).length}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.to(address);
  }
}
