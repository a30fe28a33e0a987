import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AccountTokens, type AccountTokenPurpose } from '../auth/account-tokens.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import { JobQueue } from '../jobs/job-queue.js';
import type { FulfilmentEventPayload } from '../fulfilments/fulfilment-events.js';
import type { OrderEventPayload } from '../orders/order-events.js';
import { draftOrderToken } from '../orders/order-history.js';
import type { ReturnEventPayload } from '../returns/return-events.js';
import { type MailJob, queueMail } from './mail-jobs.js';
import { type MailMessage, MailTransport } from './mail-transport.js';
import { draftOrderPayment } from './templates/draft-order-payment.js';
import { emailVerification } from './templates/email-verification.js';
import { orderConfirmation, type OrderMailValues } from './templates/order-confirmation.js';
import { passwordReset } from './templates/password-reset.js';
import { paymentReceived } from './templates/payment-received.js';
import { refundIssued, returnReceived, type ReturnMailValues } from './templates/returns.js';
import { shipment } from './templates/shipment.js';

const TOKEN_MAILS = {
  'password-reset': { purpose: 'password_reset', page: 'reset-password', template: passwordReset },
  'email-verification': { purpose: 'email_verification', page: 'verify-email', template: emailVerification },
} as const satisfies Record<string, { purpose: AccountTokenPurpose; page: string; template: unknown }>;

/** Queues the e-mails of domain events and sends every `mail.send` job. */
@Injectable()
export class MailService implements OnModuleInit {
  private readonly logger = new Logger('Mail');

  constructor(
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobQueue,
    private readonly events: EventBus,
    private readonly transport: MailTransport,
    private readonly tokens: AccountTokens,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.handle('mail.send', async (job) => {
      const message = await this.compose(job);
      if (message === null) return;
      await this.transport.send(message);
      await this.recordSent(job, message.to);
    });
    // The event's id as the job's: an event delivered twice queues its e-mail once.
    this.events.subscribe('order.created', (event) =>
      this.queue({ kind: 'order-confirmation', ...orderMail(event.data) }, event.id),
    );
    this.events.subscribe('order.paid', (event) =>
      this.queue({ kind: 'payment-received', ...orderMail(event.data) }, event.id),
    );
    this.events.subscribe('order.fulfilled', async (event) => {
      if (event.data.fulfilment.notify_customer) await this.queue(shipmentMail(event.data), event.id);
    });
    this.events.subscribe('return.received', (event) =>
      this.queue({ kind: 'return-received', ...returnMail(event.data) }, event.id),
    );
    this.events.subscribe('return.refunded', (event) =>
      this.queue({ kind: 'refund-issued', ...returnMail(event.data) }, event.id),
    );
    this.events.subscribe('user.created', (event) =>
      this.queue({ kind: 'email-verification', email: event.data.email }, event.id),
    );
  }

  /**
   * An order's e-mail, once the SMTP server accepted it, is recorded as an `order.email_sent` event (the outbox
   * keeps it for the order's timeline; webhooks may carry it). A failure to record it is logged, not retried: the
   * job would send the e-mail again.
   */
  private async recordSent(job: MailJob, to: string): Promise<void> {
    const orderNumber = orderNumberOf(job);
    if (!('orderId' in job) || job.orderId === undefined || orderNumber === null) return;
    const { orderId, kind } = job;
    try {
      await this.transactions.run('record e-mail sent', (tx) =>
        this.events.publish(tx, 'order.email_sent', {
          order: { id: orderId, order_number: orderNumber },
          kind,
          to,
          actor: { type: 'system', id: null },
        }),
      );
    } catch (error) {
      this.logger.warn({
        msg: "Could not record an order's e-mail as sent",
        order: orderId,
        kind,
        error: (error as Error).message,
      });
    }
  }

  private queue(job: MailJob, eventId: string): Promise<void> {
    return queueMail(this.jobs, this.config, job, { jobId: `mail:${eventId}` });
  }

  /** The message, or null when there is nothing to send (unknown address, verified already). */
  private async compose(job: MailJob): Promise<MailMessage | null> {
    switch (job.kind) {
      case 'order-confirmation':
        return { to: job.to, ...orderConfirmation(job.order) };
      case 'payment-received':
        return { to: job.to, ...paymentReceived(job.order) };
      case 'draft-order-payment': {
        const token = draftOrderToken(this.config.jwt.secret, job.cartId);
        const link = `${this.config.mail.linkBaseUrl}/orders/${job.orderId}?token=${token}`;
        return { to: job.to, ...draftOrderPayment({ ...job, link }) };
      }
      case 'shipment':
        return { to: job.to, ...shipment(job.shipment) };
      case 'return-received':
        return { to: job.to, ...returnReceived(job.values) };
      case 'refund-issued':
        return { to: job.to, ...refundIssued(job.values) };
      case 'password-reset':
      case 'email-verification': {
        // A token per attempt: a retry's e-mail carries a new one, and the older stops working.
        const { purpose, page, template } = TOKEN_MAILS[job.kind];
        const issued = await this.tokens.issue(purpose, job.email);
        if (issued === null) return null;
        const link = `${this.config.mail.linkBaseUrl}/${page}?token=${issued.token}`;
        return { to: issued.email, ...template({ ...issued, link }) };
      }
    }
  }
}

/**
 * An order event as its e-mail needs it (the calculator's amounts, as the API shows them). It goes to the event's
 * `email`: a guest's (greeted by the shipping address's name), or the customer's.
 */
function orderMail({ order, user, email, items, discounts }: OrderEventPayload): {
  to: string;
  orderId: number;
  order: OrderMailValues;
} {
  return {
    to: email ?? user!.email,
    orderId: order.id,
    order: {
      username: user?.username ?? order.shipping_address_details?.name ?? '',
      orderNumber: order.order_number,
      currency: order.currency_code,
      pricesIncludeTax: order.prices_include_tax,
      subtotal: order.subtotal,
      discountTotal: order.discount_total,
      shippingTotal: order.shipping_total,
      taxTotal: order.tax_total,
      giftCardTotal: order.gift_card_total,
      total: order.total,
      amountDue: order.amount_due,
      paymentMethod: order.payment_method,
      shippingAddress: order.shipping_address,
      items: items.map((item) => ({
        productName: item.product_name,
        quantity: item.quantity,
        price: item.price,
        lineTotal: item.line_total,
      })),
      discounts: (discounts ?? []).map((discount) => ({
        code: discount.code,
        description: discount.description,
        amount: discount.amount,
      })),
    },
  };
}

/** A fulfilment's shipment e-mail: the units it carries by name, its carrier and tracking. */
/** The number of the order an e-mail is about, or null for an account's e-mail. */
function orderNumberOf(job: MailJob): string | null {
  switch (job.kind) {
    case 'order-confirmation':
    case 'payment-received':
      return job.order.orderNumber;
    case 'shipment':
      return job.shipment.orderNumber;
    case 'return-received':
    case 'refund-issued':
      return job.values.orderNumber;
    case 'draft-order-payment':
      return job.orderNumber;
    default:
      return null;
  }
}

function shipmentMail(payload: FulfilmentEventPayload): MailJob {
  const { fulfilment, items } = payload;
  const { to, orderId, order } = orderMail(payload);
  return {
    kind: 'shipment',
    to,
    orderId,
    shipment: {
      username: order.username,
      orderNumber: order.orderNumber,
      carrier: fulfilment.carrier,
      trackingNumber: fulfilment.tracking_number,
      trackingUrl: fulfilment.tracking_url,
      items: fulfilment.items.map((unit) => ({
        productName: items.find((item) => item.id === unit.order_item_id)?.product_name ?? '',
        quantity: unit.quantity,
      })),
    },
  };
}

/** A return's e-mail: the received units by name and what is refunded. */
function returnMail(payload: ReturnEventPayload): { to: string; orderId: number; values: ReturnMailValues } {
  const { return: ret, items } = payload;
  const { to, orderId, order } = orderMail(payload);
  return {
    to,
    orderId,
    values: {
      username: order.username,
      orderNumber: order.orderNumber,
      returnId: ret.id,
      currency: ret.currency_code,
      refundAmount: ret.refund_amount,
      items: ret.items
        .filter((line) => (line.received_quantity ?? line.quantity) > 0)
        .map((line) => ({
          productName: items.find((item) => item.id === line.order_item_id)?.product_name ?? '',
          quantity: line.received_quantity ?? line.quantity,
        })),
    },
  };
}
