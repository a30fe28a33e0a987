import { createServer, type IncomingMessage, type Server } from 'node:http';

export const WEBHOOK_SECRET = 'whsec_test_secret';

export interface SentRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  form: URLSearchParams;
}

/** Stripe's HTTP API as far as the service uses it, recording what the SDK sent. */
export async function startFakeStripe() {
  const intents = new Map<string, Record<string, unknown>>();
  const sent: SentRequest[] = [];
  /** Refunds made, by idempotency key: a repeated key answers the refund made first, as Stripe does. */
  const refunds = new Map<string, Record<string, unknown>>();
  const faults = { refundsFail: false };
  let beforeCreateReply: ((intent: Record<string, unknown>) => Promise<void>) | null = null;
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => resolve(body));
    });
  const server: Server = createServer((req, res) => {
    void (async () => {
      const form = new URLSearchParams(await read(req));
      const path = req.url!.split('?')[0];
      sent.push({
        method: req.method!,
        path,
        idempotencyKey: req.headers['idempotency-key'] as string,
        form,
      });
      const reply = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && path === '/v1/payment_intents') {
        const id = `pi_${intents.size + 1}`;
        const intent = {
          id,
          object: 'payment_intent',
          amount: Number(form.get('amount')),
          amount_received: 0,
          currency: form.get('currency'),
          status: 'requires_payment_method',
          client_secret: `${id}_secret_x`,
          last_payment_error: null,
          latest_charge: null,
          metadata: {
            order_id: form.get('metadata[order_id]'),
            payment_id: form.get('metadata[payment_id]'),
          },
        };
        intents.set(id, intent);
        if (beforeCreateReply !== null) await beforeCreateReply(intent);
        return reply(intent);
      }
      const match = /^\/v1\/payment_intents\/([^/]+)(\/cancel)?$/.exec(path);
      if (match !== null) {
        const intent = intents.get(match[1])!;
        if (match[2] !== undefined && intent.status === 'succeeded') {
          res.writeHead(400, { 'content-type': 'application/json' });
          return res.end(
            JSON.stringify({
              error: { type: 'invalid_request_error', message: 'This PaymentIntent could not be canceled' },
            }),
          );
        }
        if (match[2] !== undefined) intent.status = 'canceled';
        return reply(intent);
      }
      if (req.method === 'POST' && path === '/v1/refunds') {
        const key = req.headers['idempotency-key'] as string;
        if (!refunds.has(key)) {
          refunds.set(key, {
            id: `re_${refunds.size + 1}`,
            object: 'refund',
            amount: Number(form.get('amount')),
            payment_intent: form.get('payment_intent'),
          });
        }
        // Made, but the answer is lost: the service cannot tell whether the refund happened.
        if (faults.refundsFail) {
          res.writeHead(500, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ error: { type: 'api_error', message: 'Something went wrong' } }));
        }
        return reply(refunds.get(key));
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'not found' } }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    intents,
    sent,
    refunds,
    faults,
    onCreate(hook: typeof beforeCreateReply) {
      beforeCreateReply = hook;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The settings of a service whose card payments go to the fake Stripe at `url`. */
export function stripeEnv(url: string) {
  return {
    PAYMENT_PROVIDERS: 'credit_card:stripe',
    STRIPE_SECRET_KEY: 'sk_test_service',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: url,
  };
}
