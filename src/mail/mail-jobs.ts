import type { AppConfig } from '../config/app-config.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { OrderMailValues } from './templates/order-confirmation.js';
import type { ReturnMailValues } from './templates/returns.js';
import type { ShipmentMailValues } from './templates/shipment.js';

/**
 * One e-mail to send, rendered by the `mail.send` job when it runs. An order's e-mail carries the order as its
 * event had it. A password reset or verification e-mail carries only the address: the job finds the account and
 * issues the token then, so that no token is ever stored but hashed (not even in the queue), and a request for
 * an unknown address does the same work as one for a known address.
 */
export type MailJob =
  | {
      kind: 'order-confirmation' | 'payment-received';
      to: string;
      /** The order's id: once sent, `order.email_sent` records it (absent in jobs queued before it was). */
      orderId?: number;
      order: OrderMailValues;
    }
  | { kind: 'shipment'; to: string; orderId?: number; shipment: ShipmentMailValues }
  | { kind: 'return-received' | 'refund-issued'; to: string; orderId?: number; values: ReturnMailValues }
  | { kind: 'password-reset'; email: string }
  | { kind: 'email-verification'; email: string }
  | {
      kind: 'draft-order-payment';
      to: string;
      /** The draft's cart: the order token is derived from it when the job runs, never carried in the queue. */
      cartId: string;
      orderId: number;
      orderNumber: string;
      currency: string;
      amountDue: number;
    };

declare module '../jobs/job-queue.js' {
  interface Jobs {
    'mail.send': MailJob;
  }
}

/**
 * Queues one e-mail, retried as MAIL_SEND_ATTEMPTS and MAIL_RETRY_BACKOFF_MS say; a second one with the same
 * `jobId` is dropped.
 */
export function queueMail(
  jobs: JobQueue,
  config: AppConfig,
  job: MailJob,
  options: { jobId?: string; delayMs?: number } = {},
): Promise<void> {
  return jobs.add('mail.send', job, {
    ...options,
    attempts: config.mail.attempts,
    backoffMs: config.mail.retryBackoffMs,
  });
}
