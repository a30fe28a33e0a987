import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { pageWindow } from '../common/pagination.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { insertedId } from '../database/inserted-id.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { Metrics } from '../observability/metrics.js';
import { InsufficientStockException, ProductsService, StockRequest } from '../products/products.service.js';
import {
  CreateOrderDto,
  MAX_QUANTITY,
  OrderDetailResponseDto,
  OrderListQueryDto,
  OrderResponseDto,
  toOrderItemResponse,
  toOrderResponse,
  UpdateOrderStatusDto,
} from './dto/order.dto.js';
import { ORDER_CREATED, ORDER_UPDATED, OrderEventPayload } from './order-events.js';
import { OrderItem } from './order-item.entity.js';
import { newOrderNumber } from './order-number.js';
import { nextOrderState, OrderState } from './order-status.js';
import { Order } from './order.entity.js';

export interface CreatedOrder {
  order: OrderResponseDto;
  /** True when an Idempotency-Key matched an earlier order, which is returned instead of a new one. */
  replayed: boolean;
}

@Injectable()
export class OrdersService {
  constructor(
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    private readonly products: ProductsService,
    private readonly transactions: TransactionRunner,
    private readonly events: EventEmitter2,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  async create(dto: CreateOrderDto, actor: AuthUser, idempotencyKey?: string): Promise<CreatedOrder> {
    if (!this.config.paymentMethods.includes(dto.payment_method)) {
      throw fieldError(
        'payment_method',
        'isIn',
        `payment_method must be one of: ${this.config.paymentMethods.join(', ')}`,
      );
    }
    const items = mergeItems(dto);
    const requestHash = createHash('sha256')
      .update(JSON.stringify([items, dto.shipping_address, dto.payment_method]))
      .digest('hex');

    if (idempotencyKey !== undefined) {
      const earlier = await this.findByIdempotencyKey(actor.id, idempotencyKey);
      if (earlier !== null) return replay(earlier, requestHash);
    }

    let order: Order;
    try {
      order = await this.transactions.run(async (manager) => {
        const now = new Date();
        const created = manager.create(Order, {
          orderNumber: newOrderNumber(now),
          userId: actor.id,
          totalCents: 0,
          status: 'pending',
          paymentStatus: 'pending',
          shippingAddress: dto.shipping_address,
          paymentMethod: dto.payment_method,
          idempotencyKey: idempotencyKey ?? null,
          requestHash: idempotencyKey === undefined ? null : requestHash,
          createdAt: now,
          updatedAt: now,
        });
        // With a key, the order row is written first: it claims the key in the unique index, and a concurrent
        // request with the same key waits on that index entry until this transaction ends (MySQL/MariaDB; on
        // SQLite transactions run one at a time). It then fails as a duplicate and replays this order, rather
        // than racing for the stock. Without a key the row is written once, with its total.
        if (idempotencyKey !== undefined) created.id = await insertOrder(manager, created);
        const reserved = await this.products.reserveStock(manager, items);
        created.totalCents = items.reduce(
          (sum, item) => sum + reserved.get(item.productId)!.priceCents * item.quantity,
          0,
        );
        if (idempotencyKey === undefined) created.id = await insertOrder(manager, created);
        else {
          // updatedAt given: TypeORM would otherwise write CURRENT_TIMESTAMP, which has whole seconds.
          await manager.update(
            Order,
            { id: created.id },
            { totalCents: created.totalCents, updatedAt: created.updatedAt },
          );
        }
        await manager.insert(
          OrderItem,
          items.map((item) => ({
            orderId: created.id,
            productId: item.productId,
            productName: reserved.get(item.productId)!.name,
            unitPriceCents: reserved.get(item.productId)!.priceCents,
            quantity: item.quantity,
          })),
        );
        return created;
      });
    } catch (error) {
      if (error instanceof InsufficientStockException) this.metrics.ordersRefusedForStock.inc();
      // The same key sent twice at once: the unique index lets one through; the other replays it.
      if (idempotencyKey !== undefined && isUniqueViolation(error)) {
        const earlier = await this.findByIdempotencyKey(actor.id, idempotencyKey);
        if (earlier !== null) return replay(earlier, requestHash);
      }
      throw error;
    }
    this.metrics.ordersCreated.inc();
    const response = toOrderResponse(order);
    this.emit(ORDER_CREATED, order.userId, response);
    return { order: response, replayed: false };
  }

  async list(query: OrderListQueryDto, actor: AuthUser): Promise<Paginated<OrderResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [orders, total] = await this.orders.findAndCount({
      where: { userId: actor.id, ...(query.status === undefined ? {} : { status: query.status }) },
      order: { id: 'DESC' },
      skip,
      take: pageSize,
    });
    return new Paginated(orders.map(toOrderResponse), total, page, pageSize);
  }

  async get(id: number, actor: AuthUser): Promise<OrderDetailResponseDto> {
    const order = await this.orders.findOne({
      where: actor.role === 'admin' ? { id } : { id, userId: actor.id },
      relations: { items: true },
      order: { items: { id: 'ASC' } },
    });
    if (order === null) throw new NotFoundException(`Order ${id} not found`);
    return { ...toOrderResponse(order), items: order.items.map(toOrderItemResponse) };
  }

  /** The owner cancels a pending order; its stock goes back in the same transaction. */
  async cancel(id: number, actor: AuthUser): Promise<OrderResponseDto> {
    return this.changeState(id, { userId: actor.id }, (current) => {
      if (current.status !== 'pending') {
        return `Only a pending order can be cancelled; this order is ${current.status}`;
      }
      return { status: 'cancelled', paymentStatus: current.paymentStatus };
    });
  }

  /** An admin moves status and payment_status along the allowed transitions. */
  async updateStatus(id: number, dto: UpdateOrderStatusDto): Promise<OrderResponseDto> {
    if (dto.status === undefined && dto.payment_status === undefined) {
      throw fieldError('status', 'required', 'status or payment_status is required');
    }
    return this.changeState(id, {}, (current) =>
      nextOrderState(current, { status: dto.status, paymentStatus: dto.payment_status }),
    );
  }

  private async changeState(
    id: number,
    scope: { userId?: number },
    decide: (current: OrderState) => OrderState | string,
  ): Promise<OrderResponseDto> {
    let cancelled = false;
    const order = await this.transactions.run(async (manager) => {
      cancelled = false;
      const current = await manager.findOne(Order, { where: { id, ...scope } });
      if (current === null) throw new NotFoundException(`Order ${id} not found`);
      const next = decide(current);
      if (typeof next === 'string') throw new BadRequestException(next);
      const now = new Date();
      // Conditional on the state just read, so two concurrent changes cannot both apply (or both restock).
      const result = await manager.update(
        Order,
        { id, status: current.status, paymentStatus: current.paymentStatus },
        { status: next.status, paymentStatus: next.paymentStatus, updatedAt: now },
      );
      if (result.affected === 0) throw new BadRequestException(`Order ${id} was changed concurrently; retry`);
      if (next.status === 'cancelled' && current.status !== 'cancelled') {
        cancelled = true;
        await this.products.releaseStock(manager, await this.stockOf(manager, id));
      }
      return { ...current, ...next, updatedAt: now };
    });
    if (cancelled) this.metrics.ordersCancelled.inc();
    const response = toOrderResponse(order);
    this.emit(ORDER_UPDATED, order.userId, response);
    return response;
  }

  private async stockOf(manager: EntityManager, orderId: number): Promise<StockRequest[]> {
    const items = await manager.find(OrderItem, {
      select: { productId: true, quantity: true },
      where: { orderId },
    });
    return items.map((item) => ({ productId: item.productId, quantity: item.quantity }));
  }

  private findByIdempotencyKey(userId: number, key: string): Promise<Order | null> {
    return this.orders
      .createQueryBuilder('o')
      .addSelect('o.requestHash')
      .where('o.userId = :userId AND o.idempotencyKey = :key', { userId, key })
      .getOne();
  }

  private emit(event: string, userId: number, order: OrderResponseDto): void {
    const payload: OrderEventPayload = { userId, order };
    this.events.emit(event, payload);
  }
}

/**
 * Inserts an order and gives its id. updateEntity(false): otherwise TypeORM would read created_at and
 * updated_at back with a SELECT inside the transaction, although they were just set.
 */
async function insertOrder(manager: EntityManager, order: Order): Promise<number> {
  return insertedId(
    await manager.createQueryBuilder().insert().into(Order).values(order).updateEntity(false).execute(),
  );
}

/** Merges repeated products and orders the requests by product id (the locking order). */
function mergeItems(dto: CreateOrderDto): StockRequest[] {
  const quantities = new Map<number, number>();
  for (const item of dto.items) {
    quantities.set(item.product_id, (quantities.get(item.product_id) ?? 0) + item.quantity);
  }
  const merged = [...quantities].map(([productId, quantity]) => ({ productId, quantity }));
  const tooMany = merged.find((item) => item.quantity > MAX_QUANTITY);
  if (tooMany !== undefined) {
    throw fieldError(
      'items',
      'maxQuantity',
      `items: product ${tooMany.productId} totals ${tooMany.quantity} units, more than ${MAX_QUANTITY}`,
    );
  }
  return merged.sort((a, b) => a.productId - b.productId);
}

function replay(order: Order, requestHash: string): CreatedOrder {
  if (order.requestHash !== requestHash) {
    throw fieldError(
      'Idempotency-Key',
      'sameRequest',
      'Idempotency-Key was already used with a different request',
    );
  }
  return { order: toOrderResponse(order), replayed: true };
}
