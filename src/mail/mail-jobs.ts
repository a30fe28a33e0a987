import type { AppConfig } from '../config/app-config.js';
import type { JobQueue } from '../jobs/job-queue.js';

/**
 * One e-mail to send, by what it is about: the `mail.send` job renders it when it runs, from the data of that
 * moment. A message with a one-time token gets its token then, so that no token is ever stored but hashed
 * (not even in the queue), and a request for an unknown address does the same work as for a known one.
 */
export type MailJob =
  | { kind: 'order-confirmation'; orderId: number }
  | { kind: 'payment-received'; orderId: number }
  | { kind: 'password-reset'; email: string }
  | { kind: 'email-verification'; email: string };

declare module '../jobs/job-queue.js' {
  interface Jobs {
    'mail.send': MailJob;
  }
}

/** Queues one e-mail, retried as MAIL_SEND_ATTEMPTS and MAIL_RETRY_BACKOFF_MS say; `jobId` drops a repeat. */
export function queueMail(jobs: JobQueue, config: AppConfig, job: MailJob, jobId?: string): Promise<void> {
  return jobs.add('mail.send', job, {
    jobId,
    attempts: config.mail.attempts,
    backoffMs: config.mail.retryBackoffMs,
  });
}
