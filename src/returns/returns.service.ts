import { BadRequestException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { pageWindow } from '../common/pagination.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { insertEntities, insertEntity } from '../database/raw-query.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import { ShippedUnits } from '../fulfilments/shipped-units.js';
import { type OrderAccess, OrderHistory } from '../orders/order-history.js';
import type { TimelineActor } from '../orders/order-timeline.js';
import { OrderRefunds } from '../payments/order-refunds.js';
import { unitShares } from '../pricing/calculator.js';
import { ProductCatalog } from '../products/product-catalog.js';
import {
  CreateReturnDto,
  ReceiveReturnDto,
  RejectReturnDto,
  ReturnListQueryDto,
  ReturnResponseDto,
  toReturnResponse,
} from './dto/return.dto.js';
import type { ReturnEventPayload } from './return-events.js';
import { Return, ReturnItem } from './return.entity.js';

const DAY_MS = 86_400_000;

@Injectable()
export class ReturnsService {
  private readonly logger = new Logger('Returns');

  constructor(
    @InjectRepository(Return) private readonly returns: Repository<Return>,
    private readonly orders: OrderHistory,
    private readonly shipped: ShippedUnits,
    private readonly products: ProductCatalog,
    private readonly refunds: OrderRefunds,
    private readonly transactions: TransactionRunner,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The customer (or a guest with the order's token) returns fulfilled units within RETURN_WINDOW_DAYS of their
   * item's last shipment. Under the order's lock each item's returned units grow by a conditional update that
   * never passes its fulfilled units, so two returns never take the same unit; each unit's refund is its share
   * of the line's total, the line's returned units taken in order.
   */
  async request(orderId: number, dto: CreateReturnDto, access: OrderAccess): Promise<ReturnResponseDto> {
    await this.orders.findPayable(orderId, access);
    const windowDays = this.config.orders.returnWindowDays;
    if (windowDays === 0) {
      throw fieldError('items', 'returnWindow', 'Returns are not accepted (RETURN_WINDOW_DAYS is 0)');
    }
    assertUnique(dto.items);
    const id = await this.transactions.run('request return', async (tx) => {
      const order = await this.orders.lockPayable(tx, orderId);
      if (!['paid', 'partially_refunded'].includes(order.paymentStatus)) {
        throw fieldError(
          'payment_status',
          'paid',
          `Only a paid order takes returns; order ${orderId} has payment_status ${order.paymentStatus}`,
        );
      }
      const units = new Map((await this.orders.unitsOf(tx, orderId)).map((unit) => [unit.orderItemId, unit]));
      const lastShipped = await this.shipped.lastShippedOf(tx, orderId);
      const now = new Date();
      const lines = dto.items.map((item, i) => {
        const unit = units.get(item.order_item_id);
        if (unit === undefined) {
          throw fieldError(
            `items.${i}.order_item_id`,
            'exists',
            `items.${i}.order_item_id ${item.order_item_id} is not an item of order ${orderId}`,
          );
        }
        const shippedAt = lastShipped.get(unit.orderItemId);
        if (unit.fulfilled === 0 || shippedAt === undefined) {
          throw fieldError(
            `items.${i}.order_item_id`,
            'fulfilled',
            `items.${i}.order_item_id ${item.order_item_id} has no fulfilled units to return`,
          );
        }
        if (now.getTime() > shippedAt.getTime() + windowDays * DAY_MS) {
          throw fieldError(
            `items.${i}.order_item_id`,
            'returnWindow',
            `items.${i}.order_item_id ${item.order_item_id} shipped more than ${windowDays} days ago (RETURN_WINDOW_DAYS)`,
          );
        }
        const left = unit.fulfilled - unit.returned;
        if (item.quantity > left) throw tooMany(i, left);
        const shares = unitShares(unit.totalMinor, unit.quantity).slice(
          unit.returned,
          unit.returned + item.quantity,
        );
        return {
          orderItemId: unit.orderItemId,
          quantity: item.quantity,
          firstUnit: unit.returned,
          reason: item.reason ?? null,
          refundMinor: sum(shares),
          receivedQuantity: null,
          restock: false,
        };
      });
      const refused = await this.orders.moveUnits(
        tx,
        orderId,
        'returned',
        lines.map((line) => ({ orderItemId: line.orderItemId, quantity: line.quantity })),
      );
      if (refused !== null) throw tooMany(refused, null);
      const id = await insertEntity(tx, Return, {
        orderId,
        status: 'requested',
        currencyCode: order.currencyCode,
        note: dto.note ?? null,
        refundAmountMinor: sum(lines.map((line) => line.refundMinor)),
        refundShipping: false,
        shippingRefundOrderId: null,
        refundStatus: null,
        refundAttempt: 0,
        refundError: null,
        rejectReason: null,
        requestedBy: access.actor?.id ?? null,
        receivedBy: null,
        rejectedBy: null,
        receivedAt: null,
        rejectedAt: null,
        createdAt: now,
        updatedAt: now,
      });
      await insertEntities(
        tx,
        ReturnItem,
        lines.map((line) => ({ ...line, returnId: id })),
      );
      await this.publish(tx, 'return.requested', id, requesterOf(access));
      return id;
    });
    return this.get(id);
  }

  async listOf(orderId: number, access: OrderAccess): Promise<ReturnResponseDto[]> {
    await this.orders.findPayable(orderId, access);
    const returns = await this.returns.find({
      where: { orderId },
      relations: { items: true },
      order: { id: 'ASC', items: { id: 'ASC' } },
    });
    return returns.map(toReturnResponse);
  }

  /** Every return for the back office, newest first; by status and order. */
  async list(query: ReturnListQueryDto): Promise<Paginated<ReturnResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const where = {
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.order_id === undefined ? {} : { orderId: query.order_id }),
    };
    const [returns, total] = await this.returns.findAndCount({
      where,
      order: { id: 'DESC' },
      skip,
      take: pageSize,
    });
    const items = returns.length === 0 ? [] : await this.itemsOf(returns.map((ret) => ret.id));
    for (const ret of returns) ret.items = items.filter((item) => item.returnId === ret.id);
    return new Paginated(returns.map(toReturnResponse), total, page, pageSize);
  }

  async get(id: number): Promise<ReturnResponseDto> {
    const ret = await this.returns.findOne({
      where: { id },
      relations: { items: true },
      order: { items: { id: 'ASC' } },
    });
    if (ret === null) throw new NotFoundException(`Return ${id} not found`);
    return toReturnResponse(ret);
  }

  /**
   * Staff receive a requested return: in one transaction, under the order's lock, the return moves requested →
   * received by a conditional update (a second receive, even at the same moment, changes nothing and is 400), the
   * units that did not arrive are freed, those marked `restock` go back in stock, and the refund is fixed: the
   * received units' shares (the first ones of each item), plus the order's shipping charge when
   * `refund_shipping` (once per order). The refund itself goes to the payments after the commit.
   */
  async receive(id: number, dto: ReceiveReturnDto, staff: AuthUser): Promise<ReturnResponseDto> {
    const found = await this.returns.findOne({ where: { id }, relations: { items: true } });
    if (found === null) throw new NotFoundException(`Return ${id} not found`);
    assertUnique(dto.items);
    const received = new Map<number, { quantity: number; restock: boolean }>();
    dto.items.forEach((item, i) => {
      const requested = found.items.find((line) => line.orderItemId === item.order_item_id);
      if (requested === undefined) {
        throw fieldError(
          `items.${i}.order_item_id`,
          'inReturn',
          `items.${i}.order_item_id ${item.order_item_id} is not an item of return ${id}`,
        );
      }
      if (item.quantity > requested.quantity) {
        throw fieldError(
          `items.${i}.quantity`,
          'max',
          `items.${i}.quantity must not exceed the ${requested.quantity} unit(s) requested`,
        );
      }
      received.set(item.order_item_id, { quantity: item.quantity, restock: item.restock ?? false });
    });
    try {
      await this.transactions.run('receive return', async (tx) => {
        await this.orders.lockPayable(tx, found.orderId);
        const now = new Date();
        const moved = await tx.update(
          Return,
          { id, status: 'requested' },
          { status: 'received', receivedAt: now, receivedBy: staff.id, updatedAt: now },
        );
        if (moved.affected === 0) await this.refuseChange(tx, id, 'received');
        const units = new Map(
          (await this.orders.unitsOf(tx, found.orderId)).map((unit) => [unit.orderItemId, unit]),
        );
        let amount = 0;
        const restock = [];
        for (const line of found.items) {
          const got = received.get(line.orderItemId) ?? { quantity: 0, restock: false };
          const unit = units.get(line.orderItemId)!;
          amount += sum(
            unitShares(unit.totalMinor, unit.quantity).slice(line.firstUnit, line.firstUnit + got.quantity),
          );
          await tx.update(
            ReturnItem,
            { id: line.id },
            { receivedQuantity: got.quantity, restock: got.restock },
          );
          if (got.restock && got.quantity > 0) {
            restock.push({ productId: unit.productId, variantId: unit.variantId, quantity: got.quantity });
          }
        }
        const missing = found.items
          .map((line) => ({
            orderItemId: line.orderItemId,
            quantity: (received.get(line.orderItemId)?.quantity ?? 0) - line.quantity,
          }))
          .filter((change) => change.quantity < 0);
        if (missing.length > 0) await this.orders.moveUnits(tx, found.orderId, 'returned', missing);
        if (restock.length > 0) await this.products.releaseStock(tx, restock);
        if (dto.refund_shipping === true) amount += await this.orders.shippingChargeOf(tx, found.orderId);
        await tx.update(
          Return,
          { id },
          {
            refundAmountMinor: amount,
            refundShipping: dto.refund_shipping === true,
            shippingRefundOrderId: dto.refund_shipping === true ? found.orderId : null,
            refundStatus: amount > 0 ? 'pending' : 'succeeded',
            refundAttempt: 1,
          },
        );
        await this.publish(tx, 'return.received', id, { type: 'staff', id: staff.id });
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw fieldError(
          'refund_shipping',
          'once',
          `The shipping of order ${found.orderId} was already refunded`,
        );
      }
      throw error;
    }
    await this.settleRefund(id, staff);
    return this.get(id);
  }

  /**
   * Asks the payments again for a received return's refund: the same idempotency key while its outcome is
   * unknown (`pending`), a new one (the next attempt) after the provider refused it (`failed`).
   */
  async retryRefund(id: number, staff: AuthUser): Promise<ReturnResponseDto> {
    const ret = await this.returns.findOneBy({ id });
    if (ret === null) throw new NotFoundException(`Return ${id} not found`);
    if (ret.status !== 'received' || ret.refundStatus === 'succeeded') {
      throw fieldError(
        'refund_status',
        'open',
        `Return ${id} has no refund to retry (status ${ret.status}, refund_status ${ret.refundStatus ?? 'null'})`,
      );
    }
    if (ret.refundStatus === 'failed') {
      await this.returns.update(
        { id, refundStatus: 'failed', refundAttempt: ret.refundAttempt },
        { refundStatus: 'pending', refundAttempt: ret.refundAttempt + 1, refundError: null },
      );
    }
    await this.settleRefund(id, staff);
    return this.get(id);
  }

  /** Staff reject a requested return: its units are free to be returned again. */
  async reject(id: number, dto: RejectReturnDto, staff: AuthUser): Promise<ReturnResponseDto> {
    const found = await this.returns.findOne({ where: { id }, relations: { items: true } });
    if (found === null) throw new NotFoundException(`Return ${id} not found`);
    await this.transactions.run('reject return', async (tx) => {
      await this.orders.lockPayable(tx, found.orderId);
      const now = new Date();
      const moved = await tx.update(
        Return,
        { id, status: 'requested' },
        {
          status: 'rejected',
          rejectReason: dto.reason,
          rejectedAt: now,
          rejectedBy: staff.id,
          updatedAt: now,
        },
      );
      if (moved.affected === 0) await this.refuseChange(tx, id, 'rejected');
      await this.orders.moveUnits(
        tx,
        found.orderId,
        'returned',
        found.items.map((line) => ({ orderItemId: line.orderItemId, quantity: -line.quantity })),
      );
      await this.publish(tx, 'return.rejected', id, { type: 'staff', id: staff.id });
    });
    return this.get(id);
  }

  /**
   * The refund of a received return whose refund is pending, with the key of its attempt: a repeat (a retry, the
   * response lost) refunds nothing more. A refusal is recorded (`failed`, with the provider's message).
   */
  private async settleRefund(id: number, staff: AuthUser): Promise<void> {
    const ret = await this.returns.findOneByOrFail({ id });
    if (ret.refundStatus !== 'pending') return;
    let status: 'pending' | 'succeeded' | 'failed';
    let message: string | null = null;
    try {
      status = await this.refunds.refund(
        ret.orderId,
        ret.refundAmountMinor,
        ret.currencyCode,
        `return ${id}`,
        `return-${id}-${ret.refundAttempt}`,
        staff,
      );
    } catch (error) {
      status = 'failed';
      message = (error as Error).message.slice(0, 500);
      this.logger.warn({ msg: 'Refund of a return refused', return: id, error: message });
    }
    if (status === 'pending') return;
    await this.transactions.run('settle return refund', async (tx) => {
      const settled = await tx.update(
        Return,
        { id, refundStatus: 'pending', refundAttempt: ret.refundAttempt },
        { refundStatus: status, refundError: message, updatedAt: new Date() },
      );
      if (settled.affected === 1 && status === 'succeeded') {
        await this.publish(tx, 'return.refunded', id, { type: 'staff', id: staff.id });
      }
    });
  }

  /** A return that is no longer requested: 400 naming its status. */
  private async refuseChange(tx: Tx, id: number, to: 'received' | 'rejected'): Promise<never> {
    const current = await tx.findOneByOrFail(Return, { id });
    throw fieldError(
      'status',
      'requested',
      `Return ${id} is ${current.status}: only a requested return can be ${to}`,
    );
  }

  private itemsOf(returnIds: number[]): Promise<ReturnItem[]> {
    return this.returns.manager
      .createQueryBuilder(ReturnItem, 'i')
      .where('i.returnId IN (:...returnIds)', { returnIds })
      .orderBy('i.id', 'ASC')
      .getMany();
  }

  private async publish(
    tx: Tx,
    type: 'return.requested' | 'return.received' | 'return.rejected' | 'return.refunded',
    id: number,
    actor: TimelineActor,
  ): Promise<void> {
    const ret = await tx.findOneOrFail(Return, {
      where: { id },
      relations: { items: true },
      order: { items: { id: 'ASC' } },
    });
    const payload: ReturnEventPayload = {
      ...(await this.orders.eventPayloadOf(tx, ret.orderId, actor)),
      return: toReturnResponse(ret),
    };
    await this.events.publish(tx, type, payload);
  }
}

/** Who asks for a return: the customer, staff on their behalf, or a guest with the order's token. */
function requesterOf(access: OrderAccess): TimelineActor {
  if (access.actor === undefined) return { type: 'guest', id: null };
  return { type: access.actor.role === 'admin' ? 'staff' : 'customer', id: access.actor.id };
}

function assertUnique(items: Array<{ order_item_id: number }>): void {
  const seen = new Set<number>();
  items.forEach((item, i) => {
    if (seen.has(item.order_item_id)) {
      throw fieldError(
        `items.${i}.order_item_id`,
        'unique',
        `items.${i}.order_item_id ${item.order_item_id} is listed twice`,
      );
    }
    seen.add(item.order_item_id);
  });
}

function tooMany(index: number, left: number | null): BadRequestException {
  return fieldError(
    `items.${index}.quantity`,
    'max',
    left === null
      ? `items.${index}.quantity is more than the item's fulfilled units not in a return`
      : `items.${index}.quantity must not exceed the item's ${left} fulfilled unit(s) not in a return`,
  );
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
