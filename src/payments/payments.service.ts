import {
  BadRequestException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleInit,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { In, IsNull, LessThan, Not, Repository } from 'typeorm';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import { JobQueue } from '../jobs/job-queue.js';
import { Metrics } from '../observability/metrics.js';
import { type OrderAccess, OrderHistory } from '../orders/order-history.js';
import {
  CreateRefundDto,
  PaymentResponseDto,
  RefundResponseDto,
  toPaymentResponse,
  toRefundResponse,
} from './payment.dto.js';
import { Payment, PaymentRefund } from './payment.entity.js';
import {
  ManualProvider,
  PaymentProvider,
  type ProviderEvent,
  type ProviderPayment,
} from './payment-provider.js';
import { canMove, orderPaymentStatusOf, type PaymentStatus } from './payment-status.js';
import { StripeProvider } from './stripe-provider.js';

const REFUNDABLE: PaymentStatus[] = ['paid', 'partially_refunded'];
/** Payments an order's cancellation cancels at the provider. */
const CANCELLABLE: PaymentStatus[] = ['pending', 'requires_action', 'authorized', 'failed'];

@Injectable()
export class PaymentsService implements OnModuleInit {
  private readonly logger = new Logger('Payments');
  private readonly providers = new Map<string, PaymentProvider>();

  constructor(
    @InjectRepository(Payment) private readonly payments: Repository<Payment>,
    @InjectRepository(PaymentRefund) private readonly refunds: Repository<PaymentRefund>,
    private readonly orders: OrderHistory,
    private readonly transactions: TransactionRunner,
    private readonly events: EventBus,
    private readonly jobs: JobQueue,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.providers.set('manual', new ManualProvider());
    const stripe = config.payments.stripe;
    if (stripe !== null) {
      this.providers.set('stripe', new StripeProvider(stripe.secretKey, stripe.webhookSecret, stripe.apiUrl));
    }
  }

  onModuleInit(): void {
    // An order cancelled by its owner, an admin or the expiry job: its payment is cancelled at the provider.
    this.events.subscribe('order.cancelled', (event) => this.cancelPaymentOf(event.data.order.id));
    const after = this.config.payments.reconcileAfterSeconds;
    if (this.providers.has('stripe')) {
      this.jobs.schedule('payments.reconcile', Math.min(after, 60) * 1000, async () => {
        await this.reconcile();
      });
    }
  }

  provider(name: string): PaymentProvider {
    const provider = this.providers.get(name);
    if (provider === undefined) throw new NotFoundException(`Payment provider ${name} is not enabled`);
    return provider;
  }

  /** Creates the order's payment, or returns its live one (completing its creation at the provider if needed). */
  async create(
    orderId: number,
    access: OrderAccess,
  ): Promise<{ payment: PaymentResponseDto; created: boolean }> {
    const order = await this.orders.findPayable(orderId, access);
    let payment = await this.payments.findOneBy({ liveOrderId: orderId });
    let created = false;
    if (payment === null) {
      if (order.status !== 'pending' || !['pending', 'failed'].includes(order.paymentStatus)) {
        throw new BadRequestException(
          `Order ${orderId} takes no payment: it is ${order.status} with payment ${order.paymentStatus}`,
        );
      }
      try {
        payment = await this.payments.save(
          this.payments.create({
            orderId,
            liveOrderId: orderId,
            provider: this.config.payments.providers[order.paymentMethod] ?? 'manual',
            status: 'pending',
            amountCents: order.totalCents,
            currency: this.config.payments.currency,
            refundedCents: 0,
            providerRef: null,
            clientSecret: null,
            flag: null,
          }),
        );
        created = true;
      } catch (error) {
        // Two requests at once: the unique live_order_id lets one create; the other returns it.
        if (!isUniqueViolation(error)) throw error;
        payment = await this.payments.findOneByOrFail({ liveOrderId: orderId });
      }
    }
    if (payment.provider === 'stripe' && payment.providerRef === null) {
      // The same idempotency key on every attempt: Stripe returns the same PaymentIntent.
      const made = await this.provider('stripe').create({
        paymentId: payment.id,
        orderId,
        amountCents: payment.amountCents,
        currency: payment.currency,
        idempotencyKey: `payment-${payment.id}-create`,
      });
      // Only the provider's references (updatedAt given, as everywhere: TypeORM would write whole seconds): a webhook may already have moved the status.
      await this.payments.update(
        { id: payment.id, providerRef: IsNull() },
        { providerRef: made.ref, clientSecret: made.clientSecret, updatedAt: new Date() },
      );
      payment = await this.payments.findOneByOrFail({ id: payment.id });
    }
    return { payment: toPaymentResponse(payment), created };
  }

  async list(orderId: number, access: OrderAccess): Promise<PaymentResponseDto[]> {
    await this.orders.findPayable(orderId, access);
    const payments = await this.payments.find({ where: { orderId }, order: { id: 'ASC' } });
    return payments.map(toPaymentResponse);
  }

  /**
   * Applies a verified provider event once: the event id is written first in the same transaction, so a
   * redelivery (or the same event reaching two instances at once) finds it and does nothing.
   */
  async applyEvent(provider: PaymentProvider, event: ProviderEvent): Promise<'applied' | 'duplicate'> {
    return this.transactions.run('apply payment event', async (tx) => {
      try {
        await tx.query(
          'INSERT INTO payment_provider_events (id, provider, type, payment_id) VALUES (?, ?, ?, ?)',
          [event.id, provider.name, event.type, event.paymentId],
        );
      } catch (error) {
        if (isUniqueViolation(error)) return 'duplicate';
        throw error;
      }
      const payment = await this.lockPayment(tx, provider.name, event.paymentId, event.payment.ref);
      if (payment === null) {
        this.logger.warn({
          msg: 'Provider event for an unknown payment',
          provider: provider.name,
          event: event.id,
        });
        return 'applied';
      }
      await this.applyReported(tx, payment, event.payment);
      return 'applied';
    });
  }

  /** Re-reads from their provider the payments left pending/requires_action longer than PAYMENT_RECONCILE_AFTER. */
  async reconcile(now = new Date()): Promise<number> {
    const stale = await this.payments.find({
      where: {
        provider: 'stripe',
        status: In(['pending', 'requires_action']),
        providerRef: Not(IsNull()),
        updatedAt: LessThan(new Date(now.getTime() - this.config.payments.reconcileAfterSeconds * 1000)),
      },
      order: { updatedAt: 'ASC' },
      take: 100,
    });
    let changed = 0;
    for (const { id, providerRef } of stale) {
      try {
        const reported = await this.provider('stripe').retrieve(providerRef!);
        await this.transactions.run('reconcile payment', async (tx) => {
          const payment = await this.lockPayment(tx, 'stripe', id, null);
          if (payment === null) return;
          if (await this.applyReported(tx, payment, reported)) changed += 1;
          // Still waiting (an abandoned checkout): read again one PAYMENT_RECONCILE_AFTER later, not every tick.
          else await tx.update(Payment, { id, status: payment.status }, { updatedAt: new Date() });
        });
      } catch (error) {
        this.logger.warn({
          msg: 'Reconciling a payment failed',
          payment: id,
          error: (error as Error).message,
        });
      }
    }
    if (changed > 0) this.logger.log({ msg: 'Payments reconciled', changed });
    return changed;
  }

  async refund(
    orderId: number,
    dto: CreateRefundDto,
    admin: AuthUser,
    idempotencyKey?: string,
  ): Promise<RefundResponseDto> {
    await this.orders.findPayable(orderId, { actor: admin });
    if (idempotencyKey !== undefined) {
      const earlier = await this.refundByKey(orderId, idempotencyKey);
      if (earlier !== null) return earlier;
    }
    const payment = await this.payments.findOne({ where: { orderId, status: In(REFUNDABLE) } });
    if (payment === null) throw new BadRequestException(`Order ${orderId} has no paid payment to refund`);
    const refundable = payment.amountCents - payment.refundedCents;
    const amountCents = dto.amount === undefined ? refundable : Math.round(dto.amount * 100);
    if (amountCents > refundable) {
      throw fieldError(
        'amount',
        'max',
        `amount must not exceed ${refundable / 100}, paid and not yet refunded`,
      );
    }
    let refund: PaymentRefund;
    try {
      refund = await this.transactions.run('reserve refund', async (tx) => {
        // Conditional: two refunds at once can never take back more than was paid.
        const reserved = await tx
          .createQueryBuilder()
          .update(Payment)
          .set({ refundedCents: () => 'refunded_cents + :amount', updatedAt: new Date() })
          .where('id = :id AND refunded_cents + :amount <= amount_cents', {
            id: payment.id,
            amount: amountCents,
          })
          .execute();
        if (reserved.affected === 0) {
          throw fieldError('amount', 'max', 'amount must not exceed what is paid and not yet refunded');
        }
        return tx.save(
          tx.create(PaymentRefund, {
            paymentId: payment.id,
            amountCents,
            status: 'pending',
            reason: dto.reason ?? null,
            providerRef: null,
            idempotencyKey: idempotencyKey ?? null,
          }),
        );
      });
    } catch (error) {
      if (idempotencyKey !== undefined && isUniqueViolation(error)) {
        const earlier = await this.refundByKey(orderId, idempotencyKey);
        if (earlier !== null) return earlier;
      }
      throw error;
    }
    let providerRef: string | null;
    try {
      providerRef = await this.provider(payment.provider).refund(payment.providerRef, {
        amountCents,
        refundId: refund.id,
        idempotencyKey: `refund-${refund.id}`,
      });
    } catch (error) {
      await this.transactions.run('refund refused', async (tx) => {
        await tx.update(PaymentRefund, { id: refund.id }, { status: 'failed', updatedAt: new Date() });
        await tx
          .createQueryBuilder()
          .update(Payment)
          .set({ refundedCents: () => 'refunded_cents - :amount', updatedAt: new Date() })
          .where('id = :id', { id: payment.id, amount: amountCents })
          .execute();
      });
      this.logger.warn({
        msg: 'Provider refused a refund',
        refund: refund.id,
        error: (error as Error).message,
      });
      throw new BadRequestException(`The payment provider refused the refund: ${(error as Error).message}`);
    }
    await this.transactions.run('refund', async (tx) => {
      await tx.update(
        PaymentRefund,
        { id: refund.id },
        { status: 'succeeded', providerRef, updatedAt: new Date() },
      );
      const locked = (await this.lockPayment(tx, payment.provider, payment.id, null))!;
      const status = locked.refundedCents >= locked.amountCents ? 'refunded' : 'partially_refunded';
      await this.move(tx, locked, status);
    });
    return toRefundResponse(await this.refunds.findOneByOrFail({ id: refund.id }));
  }

  /** The admin endpoints: any order, 404 for a missing one. */
  async listRefunds(orderId: number, admin: AuthUser): Promise<RefundResponseDto[]> {
    await this.orders.findPayable(orderId, { actor: admin });
    const refunds = await this.refunds
      .createQueryBuilder('r')
      .innerJoin(Payment, 'p', 'p.id = r.paymentId')
      .where('p.orderId = :orderId', { orderId })
      .orderBy('r.id', 'ASC')
      .getMany();
    return refunds.map(toRefundResponse);
  }

  private async cancelPaymentOf(orderId: number): Promise<void> {
    const payment = await this.payments.findOneBy({ liveOrderId: orderId, status: In(CANCELLABLE) });
    if (payment === null) return;
    let reported: ProviderPayment | null = null;
    if (payment.providerRef !== null) {
      const provider = this.provider(payment.provider);
      try {
        await provider.cancel(payment.providerRef, `payment-${payment.id}-cancel`);
      } catch (error) {
        // Typically the payment succeeded meanwhile: what the provider holds is applied instead (flagged
        // paid_after_cancel when the money was taken), rather than retrying a cancellation that cannot happen.
        this.logger.warn({
          msg: 'Provider refused to cancel a payment',
          payment: payment.id,
          error: String(error),
        });
        reported = await provider.retrieve(payment.providerRef);
      }
    }
    await this.transactions.run('cancel payment', async (tx) => {
      const locked = await this.lockPayment(tx, payment.provider, payment.id, null);
      if (locked === null) return;
      if (reported === null) await this.move(tx, locked, 'cancelled');
      else await this.applyReported(tx, locked, reported);
    });
  }

  private async refundByKey(orderId: number, key: string): Promise<RefundResponseDto | null> {
    const earlier = await this.refunds
      .createQueryBuilder('r')
      .innerJoin(Payment, 'p', 'p.id = r.paymentId')
      .addSelect('p.orderId', 'order_id')
      .where('r.idempotencyKey = :key', { key })
      .getRawAndEntities();
    if (earlier.entities.length === 0) return null;
    if (Number(earlier.raw[0].order_id) !== orderId) {
      throw fieldError(
        'Idempotency-Key',
        'sameRequest',
        'Idempotency-Key was already used for another order',
      );
    }
    return toRefundResponse(earlier.entities[0]);
  }

  private lockPayment(
    tx: Tx,
    provider: string,
    id: number | null,
    ref: string | null,
  ): Promise<Payment | null> {
    if (id === null && ref === null) return Promise.resolve(null);
    const query = tx.createQueryBuilder(Payment, 'p').where('p.provider = :provider', { provider });
    if (id !== null) query.andWhere('p.id = :id', { id });
    else query.andWhere('p.providerRef = :ref', { ref });
    return forUpdate(query).getOne();
  }

  /**
   * Moves a payment to what its provider reports, if the state machine allows it. Never to paid (or a refund)
   * when the amount or currency differs from the payment's: that is logged, counted and flagged instead.
   */
  private async applyReported(tx: Tx, payment: Payment, reported: ProviderPayment): Promise<boolean> {
    const takesMoney = ['paid', 'refunded', 'partially_refunded'].includes(reported.status);
    if (
      takesMoney &&
      (reported.amountCents !== payment.amountCents || reported.currency !== payment.currency)
    ) {
      this.metrics.paymentAmountMismatches.inc();
      this.logger.error({
        msg: 'Provider amount or currency differs from the order; payment not marked paid',
        payment: payment.id,
        order: payment.orderId,
        expected: `${payment.amountCents} ${payment.currency}`,
        reported: `${reported.amountCents} ${reported.currency}`,
      });
      await tx.update(Payment, { id: payment.id }, { flag: 'amount_mismatch', updatedAt: new Date() });
      return false;
    }
    if (reported.refundedCents > payment.refundedCents) {
      payment.refundedCents = reported.refundedCents;
      await tx.update(
        Payment,
        { id: payment.id },
        { refundedCents: reported.refundedCents, updatedAt: new Date() },
      );
    }
    return this.move(tx, payment, reported.status);
  }

  /** One move along the state machine by a conditional update; the order's payment_status follows. */
  private async move(tx: Tx, payment: Payment, status: PaymentStatus): Promise<boolean> {
    if (!canMove(payment.status, status)) return false;
    const now = new Date();
    const result = await tx.update(
      Payment,
      { id: payment.id, status: payment.status },
      { status, updatedAt: now, ...(status === 'cancelled' ? { liveOrderId: null } : {}) },
    );
    if (result.affected === 0)
      throw new BadRequestException(`Payment ${payment.id} was changed concurrently; retry`);
    const followed = await this.orders.followPayment(tx, payment.orderId, orderPaymentStatusOf(status));
    if (!followed) {
      this.logger.error({ msg: 'Payment taken for a cancelled order; refund it', payment: payment.id });
      await tx.update(Payment, { id: payment.id }, { flag: 'paid_after_cancel', updatedAt: new Date() });
    }
    return true;
  }
}
