import {
  BadRequestException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleInit,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import type { AuthUser } from '../auth/auth-user.js';
import { In, IsNull, LessThan, Not, Repository } from 'typeorm';
import { fromMinor, isAmountIn, minorUnits, toMinor } from '../pricing/calculator.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import { JobQueue } from '../jobs/job-queue.js';
import { Metrics } from '../observability/metrics.js';
import { amountDueOf, type OrderAccess, OrderHistory } from '../orders/order-history.js';
import {
  CreateRefundDto,
  PaymentResponseDto,
  RefundResponseDto,
  toPaymentResponse,
  toRefundResponse,
} from './payment.dto.js';
import { Payment, PaymentRefund } from './payment.entity.js';
import {
  PAYMENT_PROVIDERS,
  PaymentProvider,
  type ProviderEvent,
  type ProviderPayment,
  ProviderUnavailableError,
} from './payment-provider.js';
import type { PaymentStatus as OrderPaymentStatus } from '../orders/order-events.js';
import type { TimelineActor } from '../orders/order-timeline.js';
import { canMove, orderPaymentStatusOf, type PaymentStatus } from './payment-status.js';

const REFUNDABLE: PaymentStatus[] = ['paid', 'partially_refunded'];
const TAKES_MONEY: PaymentStatus[] = ['paid', 'refunded', 'partially_refunded'];
const PAID_AFTER_CANCEL = 'paid_after_cancel';
/** The reason of the refund the service makes itself of money taken for a cancelled order. */
export const AUTOMATIC_REFUND_REASON = 'paid after the order was cancelled';
const SYSTEM: TimelineActor = { type: 'system', id: null };
const PAYMENT_PROVIDER: TimelineActor = { type: 'payment_provider', id: null };

@Injectable()
export class PaymentsService implements OnModuleInit {
  private readonly logger = new Logger('Payments');
  private readonly providers: Map<string, PaymentProvider>;

  constructor(
    @Inject(PAYMENT_PROVIDERS) providers: PaymentProvider[],
    @InjectRepository(Payment) private readonly payments: Repository<Payment>,
    @InjectRepository(PaymentRefund) private readonly refunds: Repository<PaymentRefund>,
    private readonly orders: OrderHistory,
    private readonly transactions: TransactionRunner,
    private readonly events: EventBus,
    private readonly jobs: JobQueue,
    private readonly metrics: Metrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.providers = new Map(providers.map((provider) => [provider.name, provider]));
  }

  onModuleInit(): void {
    // An order cancelled by its owner, an admin or the expiry job cancelled its payment in the same transaction;
    // the provider is told after the commit.
    this.events.subscribe('order.cancelled', (event) => this.cancelAtProviderOf(event.data.order.id));
    const every = Math.min(this.config.payments.reconcileAfterSeconds, 60) * 1000;
    if (this.remoteProviders().length > 0) {
      this.jobs.schedule('payments.reconcile', every, async () => {
        await this.reconcile();
      });
    }
    this.jobs.schedule('payments.settle-refunds', every, async () => {
      await this.settleRefunds();
    });
  }

  provider(name: string): PaymentProvider {
    const provider = this.providers.get(name);
    if (provider === undefined) throw new NotFoundException(`Payment provider ${name} is not enabled`);
    return provider;
  }

  /**
   * Creates the order's payment, or returns its live one (completing its creation at the provider if needed).
   * The payment row is written under the order's lock, and a cancellation takes that lock and cancels the live
   * payment in its own transaction: whichever comes second sees the other. A provider payment made while the
   * order was being cancelled is cancelled at once and its client secret never handed out.
   */
  async create(
    orderId: number,
    access: OrderAccess,
  ): Promise<{ payment: PaymentResponseDto; created: boolean }> {
    await this.orders.findPayable(orderId, access);
    const made = await this.transactions.run('create payment', async (tx) => {
      const order = await this.orders.lockPayable(tx, orderId);
      const live = await forUpdate(
        tx.createQueryBuilder(Payment, 'p').where('p.liveOrderId = :orderId', { orderId }),
      ).getOne();
      if (live !== null) return { payment: live, created: false };
      if (order.status !== 'pending' || !['pending', 'failed'].includes(order.paymentStatus)) {
        throw new BadRequestException(
          `Order ${orderId} takes no payment: it is ${order.status} with payment ${order.paymentStatus}`,
        );
      }
      const payment = await tx.save(
        tx.create(Payment, {
          orderId,
          liveOrderId: orderId,
          provider: this.config.payments.providers[order.paymentMethod] ?? 'manual',
          status: 'pending',
          amountCents: amountDueOf(order),
          currency: order.currencyCode,
          refundedCents: 0,
          providerRef: null,
          clientSecret: null,
          flag: null,
        }),
      );
      return { payment, created: true };
    });
    let payment = made.payment;
    const provider = this.provider(payment.provider);
    if (provider.remote && payment.providerRef === null) {
      // The same idempotency key on every attempt: Stripe returns the same PaymentIntent.
      const reported = await provider.create({
        paymentId: payment.id,
        orderId,
        amountCents: payment.amountCents,
        currency: payment.currency,
        idempotencyKey: `payment-${payment.id}-create`,
      });
      payment = await this.transactions.run('store provider payment', async (tx) => {
        const locked = (await this.lockPayment(tx, provider.name, payment.id, null))!;
        // Only the provider's references (a webhook may already have moved the status); no client secret for
        // a payment its order's cancellation cancelled meanwhile.
        if (locked.providerRef === null) {
          locked.providerRef = reported.ref;
          locked.clientSecret = locked.status === 'cancelled' ? null : reported.clientSecret;
          await tx.update(
            Payment,
            { id: payment.id },
            { providerRef: locked.providerRef, clientSecret: locked.clientSecret, updatedAt: new Date() },
          );
        }
        return locked;
      });
      if (payment.status === 'cancelled') {
        await this.cancelAtProvider(payment);
        throw new BadRequestException(`Order ${orderId} was cancelled while its payment was being created`);
      }
    }
    return { payment: toPaymentResponse(payment), created: made.created };
  }

  async list(orderId: number, access: OrderAccess): Promise<PaymentResponseDto[]> {
    await this.orders.findPayable(orderId, access);
    const payments = await this.payments.find({ where: { orderId }, order: { id: 'ASC' } });
    return payments.map(toPaymentResponse);
  }

  /**
   * Applies a verified provider event once: the event id is written first in the same transaction, so a
   * redelivery (or the same event reaching two instances at once) finds it and does nothing. The event must name
   * the payment's stored provider id: one about another provider payment that carries our payment's id in its
   * metadata changes nothing.
   */
  async applyEvent(provider: PaymentProvider, event: ProviderEvent): Promise<'applied' | 'duplicate'> {
    let paymentId: number | null = null;
    const outcome = await this.transactions.run('apply payment event', async (tx) => {
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
      if (payment.providerRef !== null && payment.providerRef !== event.payment.ref) {
        this.logger.warn({
          msg: "Provider event names another provider payment than the payment's; ignored",
          provider: provider.name,
          event: event.id,
          payment: payment.id,
        });
        return 'applied';
      }
      paymentId = payment.id;
      await this.applyReported(tx, payment, event.payment);
      return 'applied';
    });
    if (paymentId !== null) await this.refundIfPaidAfterCancel(paymentId);
    return outcome;
  }

  /** Re-reads from their provider the payments left pending/requires_action longer than PAYMENT_RECONCILE_AFTER. */
  async reconcile(now = new Date()): Promise<number> {
    const remote = this.remoteProviders();
    if (remote.length === 0) return 0;
    const stale = await this.payments.find({
      where: {
        provider: In(remote),
        status: In(['pending', 'requires_action']),
        providerRef: Not(IsNull()),
        updatedAt: LessThan(new Date(now.getTime() - this.config.payments.reconcileAfterSeconds * 1000)),
      },
      order: { updatedAt: 'ASC' },
      take: 100,
    });
    let changed = 0;
    for (const { id, provider, providerRef } of stale) {
      try {
        const reported = await this.provider(provider).retrieve(providerRef!);
        await this.transactions.run('reconcile payment', async (tx) => {
          const payment = await this.lockPayment(tx, provider, id, null);
          if (payment === null) return;
          if (await this.applyReported(tx, payment, reported)) changed += 1;
          // Still waiting (an abandoned checkout): read again one PAYMENT_RECONCILE_AFTER later, not every tick.
          else await tx.update(Payment, { id, status: payment.status }, { updatedAt: new Date() });
        });
        await this.refundIfPaidAfterCancel(id);
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
    const order = await this.orders.findPayable(orderId, { actor: admin });
    const requestHash = createHash('sha256')
      .update(JSON.stringify([dto.amount ?? null, dto.reason ?? null]))
      .digest('hex');
    if (idempotencyKey !== undefined) {
      const earlier = await this.refundByKey(orderId, idempotencyKey, requestHash);
      if (earlier !== null) return earlier;
    }
    // What the provider took is refunded first, the rest goes back to the gift cards (only once the order is
    // paid: until then the cards' balance comes back with its cancellation).
    const payments = (
      await this.payments.find({ where: { orderId, status: In(REFUNDABLE) }, order: { id: 'ASC' } })
    )
      .filter((payment) => payment.provider !== 'gift_card' || REFUNDABLE.includes(order.paymentStatus))
      .sort((a, b) => Number(a.provider === 'gift_card') - Number(b.provider === 'gift_card'));
    if (payments.length === 0)
      throw new BadRequestException(`Order ${order.orderNumber} has no paid payment to refund`);
    const refundableOf = (payment: Payment) => payment.amountCents - payment.refundedCents;
    const refundable = payments.reduce((sum, payment) => sum + refundableOf(payment), 0);
    const currency = payments[0].currency;
    if (dto.amount !== undefined && !isAmountIn(dto.amount, currency)) {
      throw fieldError(
        'amount',
        'isAmountIn',
        `amount must be an amount in ${currency.toUpperCase()} (at most ${minorUnits(currency)} decimals)`,
      );
    }
    const amountCents = dto.amount === undefined ? refundable : toMinor(dto.amount, currency);
    if (amountCents > refundable) {
      throw fieldError(
        'amount',
        'max',
        `amount must not exceed ${fromMinor(refundable, currency)}, paid and not yet refunded`,
      );
    }
    let left = amountCents;
    let first: PaymentRefund | null = null;
    for (const payment of payments) {
      const part = Math.min(left, refundableOf(payment));
      if (part === 0 && first !== null) continue;
      left -= part;
      let refund: PaymentRefund;
      try {
        // The Idempotency-Key names the first part; a replay answers it.
        refund = await this.reserveRefund(payment, part, dto.reason ?? null, admin.id, {
          idempotencyKey: first === null ? (idempotencyKey ?? null) : null,
          requestHash: first === null && idempotencyKey !== undefined ? requestHash : null,
        });
      } catch (error) {
        if (first === null && idempotencyKey !== undefined && isUniqueViolation(error)) {
          const earlier = await this.refundByKey(orderId, idempotencyKey, requestHash);
          if (earlier !== null) return earlier;
        }
        throw error;
      }
      const settled = await this.settleRefund(refund, payment);
      first ??= settled;
      if (left === 0) break;
    }
    return toRefundResponse(first!, currency);
  }

  /** The admin endpoints: any order, 404 for a missing one. */
  async listRefunds(orderId: number, admin: AuthUser): Promise<RefundResponseDto[]> {
    await this.orders.findPayable(orderId, { actor: admin });
    const refunds = await this.refunds
      .createQueryBuilder('r')
      .innerJoin(Payment, 'p', 'p.id = r.paymentId')
      .addSelect('p.currency', 'currency')
      .where('p.orderId = :orderId', { orderId })
      .orderBy('r.id', 'ASC')
      .getRawAndEntities();
    return refunds.entities.map((refund, i) => toRefundResponse(refund, refunds.raw[i].currency));
  }

  /**
   * The periodic job: refunds left `pending` longer than PAYMENT_RECONCILE_AFTER (the provider's answer was lost:
   * a crash, a timeout) are asked again with the same idempotency key, which the provider answers with the
   * refund it made or makes it now; and money taken for a cancelled order whose automatic refund did not go
   * through is refunded. Returns how many refunds it settled.
   */
  async settleRefunds(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.config.payments.reconcileAfterSeconds * 1000);
    const stuck = await this.refunds.find({
      where: { status: 'pending', updatedAt: LessThan(before) },
      order: { id: 'ASC' },
      take: 100,
    });
    let settled = 0;
    for (const refund of stuck) {
      const payment = await this.payments.findOneByOrFail({ id: refund.paymentId });
      try {
        if ((await this.settleRefund(refund, payment)).status !== 'pending') settled += 1;
      } catch (error) {
        this.logger.warn({
          msg: 'Settling a refund failed',
          refund: refund.id,
          error: (error as Error).message,
        });
      }
    }
    const flagged = await this.payments.find({
      select: { id: true },
      where: { flag: PAID_AFTER_CANCEL, status: In(REFUNDABLE), updatedAt: LessThan(before) },
      take: 100,
    });
    for (const { id } of flagged) await this.refundIfPaidAfterCancel(id);
    if (settled > 0) this.logger.log({ msg: 'Pending refunds settled', settled });
    return settled;
  }

  /** Reserves a refund's amount on the payment (never past what was paid) and records it `pending`. */
  private reserveRefund(
    payment: Payment,
    amountCents: number,
    reason: string | null,
    requestedBy: number | null,
    key: { idempotencyKey: string | null; requestHash: string | null },
  ): Promise<PaymentRefund> {
    return this.transactions.run('reserve refund', async (tx) => {
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
          reason,
          providerRef: null,
          requestedBy,
          ...key,
        }),
      );
    });
  }

  /**
   * Asks the provider for a reserved refund (key `refund-{id}`, the same on every attempt) and records the
   * outcome, each by a conditional update on the refund being `pending`, so the request and the settling job
   * never both apply it. A refusal gives the reserved amount back (400); an unknown outcome leaves it `pending`.
   */
  private async settleRefund(refund: PaymentRefund, payment: Payment): Promise<PaymentRefund> {
    let providerRef: string | null;
    try {
      providerRef = await this.provider(payment.provider).refund(payment.providerRef, {
        amountCents: refund.amountCents,
        refundId: refund.id,
        idempotencyKey: `refund-${refund.id}`,
        orderId: payment.orderId,
      });
    } catch (error) {
      if (error instanceof ProviderUnavailableError) {
        this.logger.warn({
          msg: 'Payment provider unavailable for a refund; it stays pending and is asked again later',
          refund: refund.id,
          error: error.message,
        });
        return refund;
      }
      await this.transactions.run('refund refused', async (tx) => {
        const refused = await tx.update(
          PaymentRefund,
          { id: refund.id, status: 'pending' },
          { status: 'failed', updatedAt: new Date() },
        );
        if (refused.affected === 0) return;
        await tx
          .createQueryBuilder()
          .update(Payment)
          .set({ refundedCents: () => 'refunded_cents - :amount', updatedAt: new Date() })
          .where('id = :id', { id: payment.id, amount: refund.amountCents })
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
      const succeeded = await tx.update(
        PaymentRefund,
        { id: refund.id, status: 'pending' },
        { status: 'succeeded', providerRef, updatedAt: new Date() },
      );
      if (succeeded.affected === 0) return;
      const locked = (await this.lockPayment(tx, payment.provider, payment.id, null))!;
      const status = locked.refundedCents >= locked.amountCents ? 'refunded' : 'partially_refunded';
      // The order is refunded once every payment that took money is (the provider's and the gift cards').
      const others = await tx.count(Payment, {
        where: { orderId: locked.orderId, id: Not(locked.id), status: In(REFUNDABLE) },
      });
      // The order's events name who asked for the refund (the service itself for a paid-after-cancel one).
      const actor: TimelineActor =
        refund.requestedBy === null ? SYSTEM : { type: 'staff', id: refund.requestedBy };
      await this.move(tx, locked, status, actor, others > 0 ? 'partially_refunded' : undefined);
    });
    return this.refunds.findOneByOrFail({ id: refund.id });
  }

  /**
   * Money taken for a cancelled order goes back by itself: the rest of the payment is refunded, once (the
   * reservation is conditional, and a refund still pending is left to settle).
   */
  private async refundIfPaidAfterCancel(paymentId: number): Promise<void> {
    const payment = await this.payments.findOneBy({ id: paymentId });
    if (payment === null || payment.flag !== PAID_AFTER_CANCEL || !REFUNDABLE.includes(payment.status))
      return;
    if (payment.refundedCents >= payment.amountCents) return;
    if (await this.refunds.existsBy({ paymentId, status: 'pending' })) return;
    try {
      const refund = await this.reserveRefund(
        payment,
        payment.amountCents - payment.refundedCents,
        AUTOMATIC_REFUND_REASON,
        null,
        { idempotencyKey: null, requestHash: null },
      );
      await this.settleRefund(refund, payment);
    } catch (error) {
      this.logger.error({
        msg: 'Refunding a payment taken for a cancelled order failed; the settling job tries again',
        payment: paymentId,
        error: (error as Error).message,
      });
    }
  }

  /**
   * After an order's cancellation committed: its payments that cancellation cancelled are cancelled at their
   * provider. A provider that refuses (the money was taken meanwhile) is read back and what it holds is applied
   * (flagged paid_after_cancel, refunded).
   */
  private async cancelAtProviderOf(orderId: number): Promise<void> {
    const cancelled = await this.payments.findBy({
      orderId,
      status: 'cancelled',
      providerRef: Not(IsNull()),
    });
    for (const payment of cancelled) await this.cancelAtProvider(payment);
  }

  private async cancelAtProvider(payment: Payment): Promise<void> {
    const provider = this.provider(payment.provider);
    if (!provider.remote || payment.providerRef === null) return;
    try {
      await provider.cancel(payment.providerRef, `payment-${payment.id}-cancel`);
      return;
    } catch (error) {
      this.logger.warn({
        msg: 'Provider refused to cancel a payment',
        payment: payment.id,
        error: String(error),
      });
    }
    const reported = await provider.retrieve(payment.providerRef);
    await this.transactions.run('cancel payment', async (tx) => {
      const locked = await this.lockPayment(tx, payment.provider, payment.id, null);
      if (locked !== null) await this.applyReported(tx, locked, reported);
    });
    await this.refundIfPaidAfterCancel(payment.id);
  }

  private async refundByKey(
    orderId: number,
    key: string,
    requestHash: string,
  ): Promise<RefundResponseDto | null> {
    const earlier = await this.refunds
      .createQueryBuilder('r')
      .innerJoin(Payment, 'p', 'p.id = r.paymentId')
      .addSelect('r.requestHash')
      .addSelect('p.orderId', 'order_id')
      .addSelect('p.currency', 'currency')
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
    // Refunds recorded before request hashes were kept have none: they replay as before.
    const hash = earlier.entities[0].requestHash;
    if (hash !== null && hash !== requestHash) {
      throw fieldError(
        'Idempotency-Key',
        'sameRequest',
        'Idempotency-Key was already used with a different amount or reason',
      );
    }
    return toRefundResponse(earlier.entities[0], earlier.raw[0].currency);
  }

  private remoteProviders(): string[] {
    return [...this.providers.values()].filter((p) => p.remote).map((p) => p.name);
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
   * when the amount or currency differs from the payment's: that is logged, counted and flagged instead. Money
   * taken on a payment cancelled with its order is recorded as taken, flagged paid_after_cancel and refunded.
   */
  private async applyReported(tx: Tx, payment: Payment, reported: ProviderPayment): Promise<boolean> {
    const takesMoney = TAKES_MONEY.includes(reported.status);
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
    if (payment.status === 'cancelled' && takesMoney) {
      await tx.update(
        Payment,
        { id: payment.id, status: 'cancelled' },
        { status: reported.status, refundedCents: reported.refundedCents, updatedAt: new Date() },
      );
      await this.flagPaidAfterCancel(tx, payment);
      // A refund made at the provider shows on the (still cancelled) order.
      if (reported.status !== 'paid') {
        await this.orders.followPayment(
          tx,
          payment.orderId,
          orderPaymentStatusOf(reported.status),
          PAYMENT_PROVIDER,
        );
      }
      return true;
    }
    if (reported.refundedCents > payment.refundedCents) {
      payment.refundedCents = reported.refundedCents;
      await tx.update(
        Payment,
        { id: payment.id },
        { refundedCents: reported.refundedCents, updatedAt: new Date() },
      );
    }
    return this.move(tx, payment, reported.status, PAYMENT_PROVIDER);
  }

  /** One move along the state machine by a conditional update; the order's payment_status follows. */
  private async move(
    tx: Tx,
    payment: Payment,
    status: PaymentStatus,
    actor: TimelineActor,
    orderStatus: OrderPaymentStatus = orderPaymentStatusOf(status),
  ): Promise<boolean> {
    if (!canMove(payment.status, status)) return false;
    const now = new Date();
    const result = await tx.update(
      Payment,
      { id: payment.id, status: payment.status },
      { status, updatedAt: now, ...(status === 'cancelled' ? { liveOrderId: null } : {}) },
    );
    if (result.affected === 0)
      throw new BadRequestException(`Payment ${payment.id} was changed concurrently; retry`);
    const followed = await this.orders.followPayment(tx, payment.orderId, orderStatus, actor);
    if (!followed) await this.flagPaidAfterCancel(tx, payment);
    return true;
  }

  /** Money taken for a cancelled or expired order: flagged for staff, logged, counted; refunded after the commit. */
  private async flagPaidAfterCancel(tx: Tx, payment: Payment): Promise<void> {
    this.metrics.paymentsPaidAfterCancel.inc();
    this.logger.error({
      msg: 'Payment taken for a cancelled order; refunding it',
      payment: payment.id,
      order: payment.orderId,
    });
    await tx.update(Payment, { id: payment.id }, { flag: PAID_AFTER_CANCEL, updatedAt: new Date() });
  }
}
