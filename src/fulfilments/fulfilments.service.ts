import { BadRequestException, Injectable, NotFoundException, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { fieldError } from '../common/validation.js';
import { insertEntities, insertEntity } from '../database/raw-query.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import type { OrderFulfilmentDto } from '../orders/dto/order.dto.js';
import { OrderHistory } from '../orders/order-history.js';
import { CreateFulfilmentDto, toFulfilmentResponse } from './dto/fulfilment.dto.js';
import { Fulfilment, FulfilmentItem } from './fulfilment.entity.js';
import type { ShippedUnits } from './shipped-units.js';

@Injectable()
export class FulfilmentsService implements ShippedUnits, OnModuleInit {
  constructor(
    @InjectRepository(Fulfilment) private readonly fulfilments: Repository<Fulfilment>,
    private readonly orders: OrderHistory,
    private readonly transactions: TransactionRunner,
    private readonly events: EventBus,
  ) {}

  onModuleInit(): void {
    this.orders.showFulfilments((orderId) => this.listOf(orderId));
  }

  /** The order's fulfilments, oldest first, cancelled ones included. */
  async listOf(orderId: number): Promise<OrderFulfilmentDto[]> {
    const fulfilments = await this.fulfilments.find({
      where: { orderId },
      relations: { items: true },
      order: { id: 'ASC', items: { id: 'ASC' } },
    });
    return fulfilments.map(toFulfilmentResponse);
  }

  async lastShippedOf(tx: Tx, orderId: number): Promise<Map<number, Date>> {
    const rows: Array<{ order_item_id: number | string; shipped_at: Date | string }> = await tx
      .createQueryBuilder(FulfilmentItem, 'fi')
      .innerJoin('fi.fulfilment', 'f')
      .select('fi.orderItemId', 'order_item_id')
      .addSelect('MAX(f.shippedAt)', 'shipped_at')
      .where('f.orderId = :orderId AND f.cancelledAt IS NULL', { orderId })
      .groupBy('fi.orderItemId')
      .getRawMany();
    return new Map(rows.map((row) => [Number(row.order_item_id), asUtcDate(row.shipped_at)]));
  }

  /**
   * Ships units of a paid order. Under the order's lock, each item's fulfilled units grow by a conditional update
   * that never passes its quantity (and a CHECK), so concurrent fulfilments never ship a unit twice; the order's
   * fulfillment_status and status follow in the same transaction, with `order.fulfilled`.
   */
  async create(orderId: number, dto: CreateFulfilmentDto, staff: AuthUser): Promise<OrderFulfilmentDto> {
    await this.orders.findPayable(orderId, { actor: staff });
    return this.transactions.run('create fulfilment', async (tx) => {
      const order = await this.orders.lockPayable(tx, orderId);
      if (order.paymentStatus !== 'paid') {
        throw fieldError(
          'payment_status',
          'paid',
          `Only a paid order is fulfilled; order ${orderId} has payment_status ${order.paymentStatus}`,
        );
      }
      const units = new Map((await this.orders.unitsOf(tx, orderId)).map((item) => [item.orderItemId, item]));
      const seen = new Set<number>();
      dto.items.forEach((item, i) => {
        const unit = units.get(item.order_item_id);
        if (unit === undefined) {
          throw fieldError(
            `items.${i}.order_item_id`,
            'exists',
            `items.${i}.order_item_id ${item.order_item_id} is not an item of order ${orderId}`,
          );
        }
        if (seen.has(item.order_item_id)) {
          throw fieldError(
            `items.${i}.order_item_id`,
            'unique',
            `items.${i}.order_item_id ${item.order_item_id} is listed twice`,
          );
        }
        seen.add(item.order_item_id);
        if (item.quantity > unit.quantity - unit.fulfilled) {
          throw this.overFulfilled(i, unit.quantity - unit.fulfilled);
        }
      });
      const refused = await this.orders.moveUnits(
        tx,
        orderId,
        'fulfilled',
        dto.items.map((item) => ({ orderItemId: item.order_item_id, quantity: item.quantity })),
      );
      if (refused !== null) throw this.overFulfilled(refused, null);
      const now = new Date();
      const fulfilment = {
        orderId,
        carrier: dto.carrier ?? null,
        trackingNumber: dto.tracking_number ?? null,
        trackingUrl: dto.tracking_url ?? null,
        notifyCustomer: dto.notify_customer ?? true,
        shippedAt: now,
        deliveredAt: null,
        cancelledAt: null,
        createdBy: staff.id,
        deliveredBy: null,
        cancelledBy: null,
        createdAt: now,
        updatedAt: now,
      } satisfies Partial<Fulfilment>;
      const id = await insertEntity(tx, Fulfilment, fulfilment);
      const items = dto.items.map((item) => ({
        fulfilmentId: id,
        orderItemId: item.order_item_id,
        quantity: item.quantity,
      }));
      await insertEntities(tx, FulfilmentItem, items);
      const response = toFulfilmentResponse({ ...fulfilment, id, items: items as FulfilmentItem[] });
      const payload = await this.orders.followFulfilment(tx, orderId, 'fulfilled', false, {
        type: 'staff',
        id: staff.id,
      });
      await this.events.publish(tx, 'order.fulfilled', { ...payload, fulfilment: response });
      return response;
    });
  }

  /**
   * Marks a fulfilment delivered. A second call answers it as it is (idempotent: nothing changes, no event). Once
   * every unit is fulfilled and every live fulfilment delivered, the order becomes completed.
   */
  async deliver(id: number, staff: AuthUser): Promise<OrderFulfilmentDto> {
    return this.change(id, async (tx, fulfilment) => {
      if (fulfilment.cancelledAt !== null) {
        throw fieldError(
          'fulfilment',
          'notCancelled',
          `Fulfilment ${id} was cancelled: it cannot be delivered`,
        );
      }
      if (fulfilment.deliveredAt !== null) return toFulfilmentResponse(fulfilment);
      const now = new Date();
      await tx.update(Fulfilment, { id }, { deliveredAt: now, deliveredBy: staff.id, updatedAt: now });
      const response = toFulfilmentResponse({ ...fulfilment, deliveredAt: now });
      const undelivered = await tx.count(Fulfilment, {
        where: { orderId: fulfilment.orderId, deliveredAt: IsNull(), cancelledAt: IsNull() },
      });
      const payload = await this.orders.followFulfilment(
        tx,
        fulfilment.orderId,
        'delivered',
        undelivered === 0,
        { type: 'staff', id: staff.id },
      );
      await this.events.publish(tx, 'order.delivered', { ...payload, fulfilment: response });
      return response;
    });
  }

  /**
   * Cancels a fulfilment not yet delivered: its units count as unfulfilled again, the order's fulfillment_status
   * is recomputed and a shipped order whose units are no longer all fulfilled is paid again.
   */
  async cancel(id: number, staff: AuthUser): Promise<OrderFulfilmentDto> {
    return this.change(id, async (tx, fulfilment) => {
      if (fulfilment.deliveredAt !== null) {
        throw fieldError(
          'fulfilment',
          'notDelivered',
          `Fulfilment ${id} was delivered: it cannot be cancelled`,
        );
      }
      if (fulfilment.cancelledAt !== null) {
        throw fieldError('fulfilment', 'notCancelled', `Fulfilment ${id} is already cancelled`);
      }
      const refused = await this.orders.moveUnits(
        tx,
        fulfilment.orderId,
        'fulfilled',
        fulfilment.items.map((item) => ({ orderItemId: item.orderItemId, quantity: -item.quantity })),
      );
      if (refused !== null) {
        throw fieldError(
          'fulfilment',
          'notReturned',
          `Units of fulfilment ${id} are in a return: it cannot be cancelled`,
        );
      }
      const now = new Date();
      await tx.update(Fulfilment, { id }, { cancelledAt: now, cancelledBy: staff.id, updatedAt: now });
      const undelivered = await tx.count(Fulfilment, {
        where: { orderId: fulfilment.orderId, deliveredAt: IsNull(), cancelledAt: IsNull() },
      });
      await this.orders.followFulfilment(tx, fulfilment.orderId, 'cancelled', undelivered === 0, {
        type: 'staff',
        id: staff.id,
      });
      return toFulfilmentResponse({ ...fulfilment, cancelledAt: now });
    });
  }

  /** Runs `apply` on the fulfilment under its order's lock (the lock every change of the order's units takes). */
  private async change(
    id: number,
    apply: (tx: Tx, fulfilment: Fulfilment) => Promise<OrderFulfilmentDto>,
  ): Promise<OrderFulfilmentDto> {
    const found = await this.fulfilments.findOne({ select: { id: true, orderId: true }, where: { id } });
    if (found === null) throw new NotFoundException(`Fulfilment ${id} not found`);
    return this.transactions.run('change fulfilment', async (tx) => {
      await this.orders.lockPayable(tx, found.orderId);
      const fulfilment = await forUpdate(
        tx.createQueryBuilder(Fulfilment, 'f').where('f.id = :id', { id }),
      ).getOneOrFail();
      fulfilment.items = await tx.find(FulfilmentItem, { where: { fulfilmentId: id }, order: { id: 'ASC' } });
      return apply(tx, fulfilment);
    });
  }

  private overFulfilled(index: number, left: number | null): BadRequestException {
    return fieldError(
      `items.${index}.quantity`,
      'max',
      left === null
        ? `items.${index}.quantity is more than the item's unfulfilled units`
        : `items.${index}.quantity must not exceed the item's ${left} unfulfilled unit(s)`,
    );
  }
}

/** A datetime read raw: a Date from MySQL, `2026-11-22 08:00:00.000` (UTC) from SQLite. */
function asUtcDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(`${value.replace(' ', 'T')}Z`);
}
