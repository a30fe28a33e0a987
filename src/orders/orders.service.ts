import {
  BadRequestException,
  Inject,
  Injectable,
  NotFoundException,
  type OnModuleInit,
  UnauthorizedException,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { EntityManager, FindOptionsWhere, In, IsNull, LessThan, Not, Raw, Repository } from 'typeorm';
import { type AuthUser, ownedBy } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { containsPattern, LIKE_ESCAPE, pageWindow } from '../common/pagination.js';
import { type FieldError, fieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { changedRows, findEntities, insertEntities, insertEntity } from '../database/raw-query.js';
import { forUpdate } from '../database/row-locks.js';
import { sqlDatetime } from '../database/timestamps.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import { GiftCardLedger } from '../gift-cards/gift-card-ledger.js';
import { Metrics } from '../observability/metrics.js';
import {
  InsufficientStockException,
  ProductCatalog,
  type StockRequest,
} from '../products/product-catalog.js';
import { joinAccountSummary } from '../users/user-accounts.js';
import type { PricedDocument } from '../pricing/calculator.js';
import { unitPriceIn } from '../pricing/currency-prices.js';
import { DocumentPricing } from '../pricing/document-pricing.js';
import { PriceListPrices } from '../price-lists/price-list-prices.js';
import { storedDiscountsResponse } from '../pricing/dto/priced.dto.js';
import { RegionDirectory, type RegionInfo } from '../regions/region-directory.js';
import { type TaxAddress, taxAddressOf } from '../taxes/tax-provider.js';
import {
  AdminOrderListQueryDto,
  AdminOrderResponseDto,
  CreateOrderDto,
  MAX_QUANTITY,
  OrderDetailResponseDto,
  OrderListQueryDto,
  OrderOwnerDto,
  OrderResponseDto,
  formatAddress,
  toOrderDetail,
  toOrderOwner,
  toOrderResponse,
  UpdateOrderStatusDto,
} from './dto/order.dto.js';
import {
  CANCEL_GIFT_CARD_PAYMENT,
  CANCEL_LIVE_PAYMENT,
  GIFT_CARD_PAYMENT,
  MANUAL_PAYMENT_PAID,
  MANUAL_PAYMENT_RECORDED,
  MONEY_TAKEN,
  ORDERS_WITH_PAYMENT_IN_FLIGHT,
  PAYMENT_IN_FLIGHT,
  OWNER,
  PENDING_OF_USER,
  PENDING_OF_USER_BESIDES,
} from './order-statements.js';
import type { OrderEventPayload } from './order-events.js';
import type { TimelineActor } from './order-timeline.js';
import type {
  CartOrder,
  FulfilmentChange,
  FulfilmentReader,
  OrderUnits,
  UnitChange,
} from './order-history.js';
import { OrderAdjustment, OrderItem, OrderTaxLine } from './order-item.entity.js';
import { newOrderNumber } from './order-number.js';
import { fulfillmentStatusOf, nextOrderState, OrderState, type PaymentStatus } from './order-status.js';
import { amountDueOf, type OrderAccess, OrderHistory, type PayableOrder } from './order-history.js';
import { Order } from './order.entity.js';

/** Orders the expiry job cancels per query of candidates. */
const EXPIRY_BATCH = 200;

export interface CreatedOrder {
  order: OrderResponseDto;
  /** True when an Idempotency-Key matched an earlier order, which is returned instead of a new one. */
  replayed: boolean;
}

@Injectable()
export class OrdersService implements OrderHistory, OnModuleInit {
  constructor(
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    private readonly products: ProductCatalog,
    private readonly transactions: TransactionRunner,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly regions: RegionDirectory,
    private readonly pricing: DocumentPricing,
    private readonly priceLists: PriceListPrices,
    private readonly giftCards: GiftCardLedger,
  ) {}

  private fulfilmentReader: FulfilmentReader = async () => [];

  onModuleInit(): void {
    this.events.subscribe('order.paid', (event) => this.recordTaxTransaction(event.data.order.id));
  }

  /**
   * A paid order's taxes are recorded with the tax provider that calculated them (Stripe Tax's transaction),
   * after the commit and again until it succeeds (the event is dispatched again when this throws).
   */
  private async recordTaxTransaction(orderId: number): Promise<void> {
    const [row]: Array<{
      order_number: string;
      tax_calculation_id: string | null;
      tax_transaction_id: string | null;
    }> = await this.orders.query(
      'SELECT order_number, tax_calculation_id, tax_transaction_id FROM orders WHERE id = ?',
      [orderId],
    );
    if (row === undefined || row.tax_calculation_id === null || row.tax_transaction_id !== null) return;
    const transactionId = await this.pricing.recordPaid(row.tax_calculation_id, row.order_number);
    if (transactionId !== null) {
      await this.orders.query(
        'UPDATE orders SET tax_transaction_id = ? WHERE id = ? AND tax_transaction_id IS NULL',
        [transactionId, orderId],
      );
    }
  }

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
      .update(
        JSON.stringify([
          items.map(({ productId, variantId, quantity }) => ({ productId, variantId, quantity })),
          dto.shipping_address,
          dto.payment_method,
        ]),
      )
      .digest('hex');

    if (idempotencyKey !== undefined) {
      const earlier = await this.findByIdempotencyKey(actor.id, idempotencyKey);
      if (earlier !== null) return replay(earlier, requestHash);
    }

    let order: Order;
    try {
      order = await this.transactions.run('place order', async (manager) => {
        const now = new Date();
        const created = manager.create(Order, {
          orderNumber: newOrderNumber(now),
          userId: actor.id,
          email: null,
          emailKey: null,
          ...UNPRICED,
          status: 'pending',
          paymentStatus: 'pending',
          shippingAddress: dto.shipping_address,
          shippingAddressDetails: null,
          paymentMethod: dto.payment_method,
          idempotencyKey: idempotencyKey ?? null,
          requestHash: idempotencyKey === undefined ? null : requestHash,
          orderTokenHash: null,
          cartId: null,
          placedByUserId: null,
          createdAt: now,
          updatedAt: now,
        });
        // A free-text address names no country: the default region prices it, its first country taxes it.
        const region = (await this.regions.find(manager, null))!;
        await this.place(manager, created, items, { region, address: null, shipping: null });
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
    return { order: toOrderResponse(order), replayed: false };
  }

  async placeFromCart(tx: Tx, placement: CartOrder): Promise<OrderDetailResponseDto> {
    if (!this.config.paymentMethods.includes(placement.paymentMethod)) {
      throw fieldError(
        'payment_method',
        'isIn',
        `payment_method must be one of: ${this.config.paymentMethods.join(', ')}`,
      );
    }
    const now = new Date();
    const created = tx.create(Order, {
      orderNumber: newOrderNumber(now),
      userId: placement.userId,
      email: placement.email,
      emailKey: placement.email?.toLowerCase() ?? null,
      ...UNPRICED,
      status: 'pending',
      paymentStatus: 'pending',
      shippingAddress: formatAddress(placement.shippingAddress),
      shippingAddressDetails: placement.shippingAddress,
      paymentMethod: placement.paymentMethod,
      idempotencyKey: null,
      requestHash: null,
      orderTokenHash: placement.orderToken === null ? null : sha256(placement.orderToken),
      cartId: placement.cartId,
      placedByUserId: placement.placedByUserId,
      createdAt: now,
      updatedAt: now,
    });
    try {
      const placed = await this.place(tx, created, placement.items, {
        region: placement.region,
        address: taxAddressOf(placement.shippingAddress),
        shipping: placement.shipping,
      });
      this.metrics.ordersCreated.inc();
      return {
        ...toOrderDetail(placed),
        ...(placement.orderToken === null ? {} : { order_token: placement.orderToken }),
      };
    } catch (error) {
      if (error instanceof InsufficientStockException) this.metrics.ordersRefusedForStock.inc();
      throw error;
    }
  }

  async placedFromCart(cartId: string): Promise<OrderDetailResponseDto | null> {
    const order = await this.orders
      .createQueryBuilder('o')
      .leftJoinAndSelect('o.items', 'i')
      .where('o.cartId = :cartId', { cartId })
      .orderBy('i.id', 'ASC')
      .getOne();
    return order === null ? null : toOrderDetail(await this.withCalculation(this.orders.manager, order));
  }

  /**
   * The no-oversell placing, in the caller's transaction: takes the stock (one conditional UPDATE per product in
   * id order), prices the order with the calculator from the prices read under those locks, writes the order
   * with its totals, its items with their shares, their tax lines and adjustments, lets the adjusters take what
   * they gave, and publishes `order.created`. An order carrying an Idempotency-Key or a cart is written first:
   * it claims its unique index entry, and a concurrent request for the same key or cart waits on it until this
   * transaction ends (MySQL/MariaDB; on SQLite transactions run one at a time), then fails as a duplicate and
   * replays this order rather than racing for the stock. Otherwise the row is written once, with its totals.
   */
  private async place(
    manager: EntityManager,
    order: Order,
    items: StockRequest[],
    pricing: OrderPricing,
  ): Promise<Order> {
    const claimsFirst = order.idempotencyKey !== null || order.cartId !== null;
    const { region } = pricing;
    order.currencyCode = region.currencyCode;
    order.regionId = region.id;
    order.pricesIncludeTax = region.pricesIncludeTax;
    if (claimsFirst) order.id = await insertEntity(manager, Order, order);
    const reserved = await this.products.reserveStock(manager, items);
    if (order.userId !== null) await this.assertPendingLimit(manager, order.userId, order.id);
    const bases = reserved.map((line, i) => {
      const price = unitPriceIn(
        region.currencyCode,
        this.config.payments.currency,
        line.priceCents,
        line.prices,
      );
      if (price === null) {
        throw fieldError(
          `items.${items[i].item ?? i}`,
          'noPrice',
          `${line.name} has no price in ${region.currencyCode.toUpperCase()}, the currency of region ${region.name}`,
        );
      }
      return price;
    });
    // The price lists that apply to the customer when the order is placed give the lines' prices; the item keeps
    // its own price too. One lookup for the order.
    const keys = reserved.map(({ productId, variantId }) => ({ productId, variantId }));
    const lists = await this.priceLists.pricesFor(manager, {
      currency: region.currencyCode,
      customerId: order.userId,
      at: order.createdAt,
      keys,
    });
    const unitPrices = keys.map((key, i) => lists.of(key, bases[i])!.price);
    const { document, taxCalculationId } = await this.pricing.price(manager, {
      region,
      address: pricing.address,
      customerId: order.userId,
      cartId: order.cartId,
      email: order.email,
      placingOrderId: claimsFirst ? order.id : null,
      lines: reserved.map((line, i) => ({
        id: i,
        productId: line.productId,
        price: unitPrices[i],
        quantity: items[i].quantity,
        taxClass: line.taxClass,
      })),
      shipping: pricing.shipping,
    });
    Object.assign(order, totalsOf(document), { taxCalculationId });
    if (!claimsFirst) order.id = await insertEntity(manager, Order, order);
    else {
      // updatedAt given: TypeORM would otherwise write CURRENT_TIMESTAMP, which has whole seconds.
      await manager.update(
        Order,
        { id: order.id },
        { ...totalsOf(document), taxCalculationId, updatedAt: order.updatedAt },
      );
    }
    await insertEntities(
      manager,
      OrderItem,
      items.map((item, i) => {
        const line = reserved[i];
        const priced = document.lines[i];
        return {
          orderId: order.id,
          productId: line.productId,
          productName: line.name,
          unitPriceCents: priced.price,
          originalUnitPriceCents: bases[i],
          quantity: item.quantity,
          variantId: line.variantId,
          sku: line.sku,
          variantTitle: line.variantTitle,
          taxClass: line.taxClass,
          discountTotalMinor: priced.discountTotal,
          taxTotalMinor: priced.taxTotal,
          totalMinor: priced.total,
        };
      }),
    );
    order.items = await this.itemsOf(manager, order.id);
    // The calculator's lines are the items in order: line i is item i (ids ascending as inserted).
    const itemIdOf = (lineId: number | string | null) =>
      lineId === null ? null : order.items[Number(lineId)].id;
    const owners = [
      ...document.lines.map((line) => ({
        itemId: itemIdOf(line.id),
        taxLines: line.taxLines,
        adjustments: line.adjustments,
      })),
      { itemId: null, taxLines: document.shipping.taxLines, adjustments: document.shipping.adjustments },
    ];
    const taxLines = owners.flatMap(({ itemId, taxLines }) =>
      taxLines.map((tax) => ({
        orderId: order.id,
        orderItemId: itemId,
        code: tax.code,
        name: tax.name,
        rate: tax.rate,
        amountMinor: tax.amount,
      })),
    );
    const adjustments = owners.flatMap(({ itemId, adjustments }) =>
      adjustments.map((adjustment) => ({
        orderId: order.id,
        orderItemId: itemId,
        code: adjustment.code,
        source: adjustment.source,
        amountMinor: adjustment.amount,
        promotionId: adjustment.promotionId ?? null,
        description: adjustment.description ?? null,
      })),
    );
    if (taxLines.length > 0) await insertEntities(manager, OrderTaxLine, taxLines);
    if (adjustments.length > 0) await insertEntities(manager, OrderAdjustment, adjustments);
    order.taxLines = taxLines as OrderTaxLine[];
    order.adjustments = adjustments as OrderAdjustment[];
    await this.pricing.commit(
      manager,
      { id: order.id, customerId: order.userId, email: order.email, cartId: order.cartId },
      document,
    );
    order.giftCards = [];
    if (document.giftCardTotal > 0) {
      const at = sqlDatetime(order.createdAt);
      await manager.query(GIFT_CARD_PAYMENT, [order.id, document.giftCardTotal, order.currencyCode, at, at]);
      order.giftCards = (await this.giftCards.ofOrders(manager, [order.id])).get(order.id) ?? [];
    }
    await this.publishChange(manager, order, null, placerOf(order));
    // Nothing left to pay: the order is paid at checkout, as a payment makes it paid (its events and e-mails).
    if (document.giftCardTotal > 0 && document.amountDue === 0) {
      await this.followPayment(manager, order.id, 'paid', placerOf(order));
      Object.assign(order, { status: 'paid', paymentStatus: 'paid' });
    }
    return order;
  }

  async list(query: OrderListQueryDto, actor: AuthUser): Promise<Paginated<OrderResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [orders, total] = await this.orders.findAndCount({
      where: { userId: actor.id, ...(query.status === undefined ? {} : { status: query.status }) },
      order: { id: 'DESC' },
      skip,
      take: pageSize,
    });
    await this.withGiftCards(this.orders.manager, orders);
    return new Paginated(orders.map(toOrderResponse), total, page, pageSize);
  }

  /**
   * Every user's orders for the back office, each with its owner and discounts. Three statements whatever the page
   * size: the count and the page, the owner joined in (offset/limit rather than skip/take, which would add one),
   * and the page's promotion adjustments; one more for the gift cards when an order of the page was paid by one.
   */
  async listAll(query: AdminOrderListQueryDto): Promise<Paginated<AdminOrderResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const qb = this.orders.createQueryBuilder('o').withDeleted();
    const ownerColumns = joinAccountSummary(qb, 'o.user', 'o.userId');
    if (query.user_id !== undefined) qb.andWhere('o.userId = :userId', { userId: query.user_id });
    if (query.status !== undefined) qb.andWhere('o.status = :status', { status: query.status });
    if (query.payment_status !== undefined) {
      qb.andWhere('o.paymentStatus = :paymentStatus', { paymentStatus: query.payment_status });
    }
    if (query.created_from !== undefined) {
      qb.andWhere('o.createdAt >= :from', { from: new Date(query.created_from) });
    }
    if (query.created_to !== undefined) qb.andWhere('o.createdAt < :to', { to: new Date(query.created_to) });
    if (query.search !== undefined && query.search !== '') {
      qb.andWhere(
        ['o.orderNumber', 'o.email', ...ownerColumns]
          .map((column) => `${column} LIKE :pattern ESCAPE '${LIKE_ESCAPE}'`)
          .join(' OR '),
        { pattern: containsPattern(query.search) },
      );
    }
    const direction = query.sort.startsWith('-') ? 'DESC' : 'ASC';
    qb.orderBy(query.sort.endsWith('total_amount') ? 'o.totalCents' : 'o.createdAt', direction)
      .addOrderBy('o.id', direction)
      .offset(skip)
      .limit(pageSize);
    const [orders, total] = await qb.getManyAndCount();
    await this.withGiftCards(this.orders.manager, orders);
    // The page's discounts in one more statement, whatever the page size.
    const adjustments =
      orders.length === 0
        ? []
        : await this.orders.manager.find(OrderAdjustment, {
            where: { orderId: In(orders.map((order) => order.id)), promotionId: Not(IsNull()) },
            order: { id: 'ASC' },
          });
    return new Paginated(
      orders.map((order) => ({
        ...toOrderResponse(order),
        user: ownerOrGuest(order),
        discounts: storedDiscountsResponse(
          adjustments
            .filter((adjustment) => adjustment.orderId === order.id)
            .map((adjustment) => ({ ...adjustment, amount: adjustment.amountMinor })),
          order.currencyCode,
        ),
      })),
      total,
      page,
      pageSize,
    );
  }

  async get(id: number, actor: AuthUser): Promise<OrderDetailResponseDto> {
    // Owner or admin, hidden: someone else's order is as not found as a missing one.
    const { userId } = ownedBy(actor);
    const admin = userId === undefined;
    const qb = this.orders
      .createQueryBuilder('o')
      .leftJoinAndSelect('o.items', 'i')
      .where('o.id = :id', { id })
      .orderBy('i.id', 'ASC');
    if (!admin) qb.andWhere('o.userId = :userId', { userId });
    else {
      joinAccountSummary(qb.withDeleted(), 'o.user', 'o.userId');
      joinAccountSummary(qb, 'o.placedBy', 'o.placedByUserId', 'placer');
    }
    const order = await qb.getOne();
    if (order === null) throw new NotFoundException(`Order ${id} not found`);
    order.fulfilments = await this.fulfilmentReader(id);
    return {
      ...toOrderDetail(await this.withCalculation(this.orders.manager, order)),
      ...(admin
        ? {
            user: ownerOrGuest(order),
            placed_by: order.placedBy == null ? null : toOrderOwner(order.placedBy),
          }
        : {}),
    };
  }

  /** A guest's order read with its token (X-Order-Token); a wrong token is as not found as a missing order. */
  async getWithToken(id: number, token: string): Promise<OrderDetailResponseDto> {
    const order = await this.orders
      .createQueryBuilder('o')
      .leftJoinAndSelect('o.items', 'i')
      .where('o.id = :id AND o.orderTokenHash = :hash', { id, hash: sha256(token) })
      .orderBy('i.id', 'ASC')
      .getOne();
    if (order === null) throw new NotFoundException(`Order ${id} not found`);
    order.fulfilments = await this.fulfilmentReader(id);
    return toOrderDetail(await this.withCalculation(this.orders.manager, order));
  }

  /** The owner cancels a pending order; its stock goes back in the same transaction. */
  async cancel(id: number, actor: AuthUser): Promise<OrderResponseDto> {
    return this.changeState(id, { userId: actor.id }, { type: 'customer', id: actor.id }, (current) => {
      if (current.status !== 'pending') {
        return {
          field: '',
          rule: 'invalid',
          message: `Only a pending order can be cancelled; this order is ${current.status}`,
        };
      }
      return { status: 'cancelled', paymentStatus: current.paymentStatus };
    });
  }

  /** An admin moves status and payment_status along the allowed transitions. */
  async updateStatus(id: number, dto: UpdateOrderStatusDto, admin: AuthUser): Promise<OrderResponseDto> {
    if (dto.status === undefined && dto.payment_status === undefined) {
      throw fieldError('status', 'required', 'status or payment_status is required');
    }
    return this.changeState(id, {}, { type: 'staff', id: admin.id }, (current) =>
      nextOrderState(current, { status: dto.status, paymentStatus: dto.payment_status }),
    );
  }

  async markPaidByHand(tx: Tx, orderId: number, staffId: number): Promise<OrderResponseDto> {
    const { order } = await this.applyChange(tx, orderId, {}, { type: 'staff', id: staffId }, (current) =>
      nextOrderState(current, {
        status: current.status === 'pending' ? 'paid' : undefined,
        paymentStatus: 'paid',
      }),
    );
    return toOrderResponse(order);
  }

  async adoptGuestOrders(tx: Tx, userId: number, email: string): Promise<number> {
    const result = await tx.update(
      Order,
      { userId: IsNull(), emailKey: email.toLowerCase() },
      { userId, updatedAt: new Date() },
    );
    return result.affected ?? 0;
  }

  private async changeState(
    id: number,
    scope: { userId?: number },
    actor: TimelineActor,
    decide: (current: OrderState) => OrderState | FieldError,
  ): Promise<OrderResponseDto> {
    const { order, cancelled } = await this.transactions.run('change order state', (manager) =>
      this.applyChange(manager, id, scope, actor, decide),
    );
    if (cancelled) this.metrics.ordersCancelled.inc();
    return toOrderResponse(order);
  }

  /** One change of an order's state, in the caller's transaction; `actor` goes into its events. */
  private async applyChange(
    manager: EntityManager,
    id: number,
    scope: { userId?: number },
    actor: TimelineActor,
    decide: (current: OrderState) => OrderState | FieldError,
  ): Promise<{ order: Order; cancelled: boolean }> {
    const current = await manager.findOne(Order, { where: { id, ...scope } });
    if (current === null) throw new NotFoundException(`Order ${id} not found`);
    const next = decide(current);
    if ('rule' in next) throw new ValidationFailedException([next]);
    const now = new Date();
    // Conditional on the state just read, so two concurrent changes cannot both apply (or both restock).
    const result = await manager.update(
      Order,
      { id, status: current.status, paymentStatus: current.paymentStatus },
      { status: next.status, paymentStatus: next.paymentStatus, updatedAt: now },
    );
    if (result.affected === 0) throw new BadRequestException(`Order ${id} was changed concurrently; retry`);
    // Staff marking the order paid is the manual provider's confirmation: its payment is recorded in the same
    // transaction, so that refunds go through the payments module.
    if (next.paymentStatus === 'paid' && current.paymentStatus !== 'paid') {
      await this.recordPaidByHand(manager, current, actor.id, now);
    }
    const items = await this.itemsOf(manager, id);
    const cancelled = next.status === 'cancelled' && current.status !== 'cancelled';
    if (cancelled) {
      await this.products.releaseStock(manager, stockOf(items));
      await this.pricing.release(manager, id);
      await cancelPayments(manager, id, now);
    }
    const changed = { ...current, ...next, updatedAt: now };
    await this.publishChange(manager, changed, current, actor, items);
    return { order: changed, cancelled };
  }

  /**
   * The order's waiting manual payment becomes paid, recorded by `staffId`; without one, a `manual` payment of the
   * amount due is written, paid (unless a payment already took the money, or gift cards paid it all).
   */
  private async recordPaidByHand(
    manager: EntityManager,
    order: Order,
    staffId: number | null,
    now: Date,
  ): Promise<void> {
    const at = sqlDatetime(now);
    if ((await changedRows(manager, MANUAL_PAYMENT_PAID, [at, staffId, at, order.id])) > 0) return;
    const amount = amountDueOf(order);
    if (amount <= 0) return;
    const taken: unknown[] = await manager.query(MONEY_TAKEN, [order.id]);
    if (taken.length > 0) return;
    await manager.query(MANUAL_PAYMENT_RECORDED, [order.id, amount, order.currencyCode, staffId, at, at, at]);
  }

  /**
   * Cancels pending unpaid orders older than ORDER_PENDING_TTL and restores their stock, in batches. Each order is
   * cancelled by a conditional update on its state, so instances running this at the same moment cancel (and
   * restock) every order exactly once. Returns how many orders this call cancelled.
   */
  async expirePending(now = new Date()): Promise<number> {
    const ttl = this.config.orders.pendingTtlSeconds;
    if (ttl === 0) return 0;
    // An order whose payment is in flight (the customer is authenticating, the money is authorized) stays.
    const notInFlight = Raw((column) => `${column} NOT IN (${ORDERS_WITH_PAYMENT_IN_FLIGHT})`);
    const stale: FindOptionsWhere<Order> = {
      id: notInFlight,
      status: 'pending',
      paymentStatus: 'pending',
      createdAt: LessThan(new Date(now.getTime() - ttl * 1000)),
    };
    let expired = 0;
    for (;;) {
      const batch = await this.orders.find({
        select: { id: true },
        where: stale,
        order: { createdAt: 'ASC' },
        take: EXPIRY_BATCH,
      });
      for (const { id } of batch) {
        const order = await this.transactions.run('expire order', async (manager) => {
          // The order, then its live payment, locked as a cancellation and a payment's creation lock them (no
          // range of payments locked, which a payment being stored would deadlock with).
          await forUpdate(manager.createQueryBuilder(Order, 'o').where('o.id = :id', { id })).getOne();
          const live = await forUpdate(
            manager
              .createQueryBuilder()
              .select('p.status', 'status')
              .from('payments', 'p')
              .where('p.live_order_id = :id', { id }),
          ).getRawOne<{ status: string }>();
          if (live !== undefined && PAYMENT_IN_FLIGHT.includes(live.status)) return null;
          return this.cancelIf(manager, id, { ...stale, id }, { type: 'system', id: null });
        });
        if (order === null) continue;
        expired += 1;
        this.metrics.ordersExpired.inc();
      }
      if (batch.length < EXPIRY_BATCH) return expired;
    }
  }

  async cancelPendingOf(tx: Tx, userId: number, actor: TimelineActor): Promise<Order[]> {
    const pending = await tx.find(Order, { select: { id: true }, where: { userId, status: 'pending' } });
    const cancelled: Order[] = [];
    for (const { id } of pending) {
      const order = await this.cancelIf(tx, id, { id, userId, status: 'pending' }, actor);
      if (order !== null) cancelled.push(order);
    }
    return cancelled;
  }

  async hasOrdered(userId: number, productId: number): Promise<boolean> {
    return this.orders
      .createQueryBuilder('o')
      .innerJoin('o.items', 'i')
      .where('o.userId = :userId AND i.productId = :productId', { userId, productId })
      .andWhere("o.status <> 'cancelled'")
      .getExists();
  }

  async ownerOf(orderId: number): Promise<number | null> {
    const order = await this.orders.findOne({ select: { id: true, userId: true }, where: { id: orderId } });
    return order?.userId ?? null;
  }

  async findPayable(orderId: number, access: OrderAccess): Promise<PayableOrder> {
    let where: FindOptionsWhere<Order>;
    if (access.orderToken !== undefined) where = { id: orderId, orderTokenHash: sha256(access.orderToken) };
    else if (access.actor === undefined) throw new UnauthorizedException('Missing bearer token');
    else where = { id: orderId, ...ownedBy(access.actor) };
    const order = await this.orders.findOne({ where });
    if (order === null) throw new NotFoundException(`Order ${orderId} not found`);
    return order;
  }

  async lockPayable(tx: Tx, orderId: number): Promise<PayableOrder> {
    return forUpdate(tx.createQueryBuilder(Order, 'o').where('o.id = :orderId', { orderId })).getOneOrFail();
  }

  async followPayment(
    tx: Tx,
    orderId: number,
    paymentStatus: PaymentStatus,
    actor: TimelineActor,
  ): Promise<boolean> {
    const current = await forUpdate(
      tx.createQueryBuilder(Order, 'o').where('o.id = :orderId', { orderId }),
    ).getOneOrFail();
    if (current.paymentStatus === paymentStatus) return true;
    // A cancelled order never becomes paid: the money is flagged for a refund instead.
    if (current.status === 'cancelled' && !['refunded', 'partially_refunded'].includes(paymentStatus)) {
      return paymentStatus !== 'paid';
    }
    // Money taken moves a pending order to paid, also when a refund is reported before the success it implies.
    const takesMoney = ['paid', 'refunded', 'partially_refunded'].includes(paymentStatus);
    const status = takesMoney && current.status === 'pending' ? 'paid' : current.status;
    const now = new Date();
    await tx.update(Order, { id: orderId }, { status, paymentStatus, updatedAt: now });
    await this.publishChange(tx, { ...current, status, paymentStatus, updatedAt: now }, current, actor);
    return true;
  }

  showFulfilments(reader: FulfilmentReader): void {
    this.fulfilmentReader = reader;
  }

  async unitsOf(tx: Tx, orderId: number): Promise<OrderUnits[]> {
    return (await this.itemsOf(tx, orderId)).map((item) => ({
      orderItemId: item.id,
      productId: item.productId,
      variantId: item.variantId,
      productName: item.productName,
      quantity: item.quantity,
      fulfilled: item.fulfilledQuantity,
      returned: item.returnedQuantity,
      totalMinor: item.totalMinor,
    }));
  }

  async moveUnits(
    tx: Tx,
    orderId: number,
    units: 'fulfilled' | 'returned',
    changes: UnitChange[],
  ): Promise<number | null> {
    const [column, floor, ceiling] =
      units === 'fulfilled'
        ? ['fulfilled_quantity', 'returned_quantity', 'quantity']
        : ['returned_quantity', '0', 'fulfilled_quantity'];
    for (const [index, { orderItemId, quantity }] of changes.entries()) {
      const result = await tx
        .createQueryBuilder()
        .update(OrderItem)
        .set({
          [units === 'fulfilled' ? 'fulfilledQuantity' : 'returnedQuantity']: () => `${column} + :quantity`,
        })
        .where('id = :orderItemId AND order_id = :orderId', { orderItemId, orderId, quantity })
        .andWhere(`${column} + :quantity >= ${floor} AND ${column} + :quantity <= ${ceiling}`)
        .execute();
      if (result.affected === 0) return index;
    }
    return null;
  }

  async followFulfilment(
    tx: Tx,
    orderId: number,
    change: FulfilmentChange,
    allDelivered: boolean,
    actor: TimelineActor,
  ): Promise<OrderEventPayload> {
    const current = await forUpdate(
      tx.createQueryBuilder(Order, 'o').where('o.id = :orderId', { orderId }),
    ).getOneOrFail();
    const items = await this.itemsOf(tx, orderId);
    const units = items.reduce((sum, item) => sum + item.quantity, 0);
    const fulfillmentStatus = fulfillmentStatusOf(
      units,
      items.reduce((sum, item) => sum + item.fulfilledQuantity, 0),
    );
    let status = current.status;
    if (fulfillmentStatus === 'fulfilled' && status === 'paid') status = 'shipped';
    if (fulfillmentStatus === 'fulfilled' && allDelivered && status === 'shipped') status = 'completed';
    if (change === 'cancelled' && fulfillmentStatus !== 'fulfilled' && status === 'shipped') status = 'paid';
    if (status === current.status && fulfillmentStatus === current.fulfillmentStatus) {
      return this.eventPayload(tx, current, actor, items);
    }
    const now = new Date();
    await tx.update(Order, { id: orderId }, { status, fulfillmentStatus, updatedAt: now });
    const changed = { ...current, status, fulfillmentStatus, updatedAt: now };
    await this.publishChange(tx, changed, current, actor, items);
    return this.eventPayload(tx, changed, actor, items);
  }

  async shippingChargeOf(tx: Tx, orderId: number): Promise<number> {
    const order = await tx.findOneByOrFail(Order, { id: orderId });
    const discounts = await tx.find(OrderAdjustment, { where: { orderId, orderItemId: IsNull() } });
    const discount = discounts.reduce((sum, adjustment) => sum + adjustment.amountMinor, 0);
    return order.shippingTotalCents - discount + (order.pricesIncludeTax ? 0 : order.shippingTaxTotalMinor);
  }

  async eventPayloadOf(tx: Tx, orderId: number, actor: TimelineActor): Promise<OrderEventPayload> {
    return this.eventPayload(tx, await tx.findOneByOrFail(Order, { id: orderId }), actor);
  }

  /** Cancels the order `id` if it matches `condition` and restocks it; null when nothing matched. */
  private async cancelIf(
    manager: EntityManager,
    id: number,
    condition: FindOptionsWhere<Order>,
    actor: TimelineActor,
  ): Promise<Order | null> {
    const now = new Date();
    const result = await manager.update(Order, condition, { status: 'cancelled', updatedAt: now });
    if (result.affected === 0) return null;
    const items = await this.itemsOf(manager, id);
    await this.products.releaseStock(manager, stockOf(items));
    await this.pricing.release(manager, id);
    await cancelPayments(manager, id, now);
    const order = await manager.findOneByOrFail(Order, { id });
    await this.publishChange(
      manager,
      order,
      { status: 'pending', paymentStatus: order.paymentStatus },
      actor,
      items,
    );
    return order;
  }

  /**
   * ORDER_MAX_PENDING_PER_USER. Counted inside the placing transaction without locking the user: on MySQL a
   * user's simultaneous placements may each see the others uncommitted and pass together (documented in api.md).
   */
  private async assertPendingLimit(manager: EntityManager, userId: number, placing?: number): Promise<void> {
    const max = this.config.orders.maxPendingPerUser;
    // With an Idempotency-Key the order being placed is already written (`placing`): it does not count.
    const [{ pending }]: Array<{ pending: number | string }> = await manager.query(
      placing === undefined ? PENDING_OF_USER : PENDING_OF_USER_BESIDES,
      placing === undefined ? [userId] : [userId, placing],
    );
    if (Number(pending) >= max) {
      throw new BadRequestException(
        `At most ${max} pending orders per user (ORDER_MAX_PENDING_PER_USER): pay or cancel one first`,
      );
    }
  }

  private itemsOf(manager: EntityManager, orderId: number): Promise<OrderItem[]> {
    return findEntities(manager, OrderItem, 'order_id = ? ORDER BY id', [orderId]);
  }

  /** The order with its tax lines and adjustments (two statements; joined with the items they would multiply). */
  private async withCalculation(manager: EntityManager, order: Order): Promise<Order> {
    const byOrder = 'order_id = ? ORDER BY id';
    order.taxLines = await findEntities(manager, OrderTaxLine, byOrder, [order.id]);
    order.adjustments = await findEntities(manager, OrderAdjustment, byOrder, [order.id]);
    await this.withGiftCards(manager, [order]);
    return order;
  }

  /** The orders' gift cards, in one statement for those a gift card paid (none for the others). */
  private async withGiftCards(manager: EntityManager, orders: Order[]): Promise<void> {
    const paid = orders.filter((order) => order.giftCardTotalMinor > 0).map((order) => order.id);
    const cards = await this.giftCards.ofOrders(manager, paid);
    for (const order of orders) order.giftCards = cards.get(order.id) ?? [];
  }

  private findByIdempotencyKey(userId: number, key: string): Promise<Order | null> {
    return this.orders
      .createQueryBuilder('o')
      .addSelect('o.requestHash')
      .where('o.userId = :userId AND o.idempotencyKey = :key', { userId, key })
      .getOne();
  }

  /**
   * Publishes, in the transaction that made it, an order's creation (`previous` null) or change: `order.updated`,
   * then what the change means (`order.cancelled`, `order.paid`, `order.refunded`).
   */
  private async publishChange(
    tx: Tx,
    order: Order,
    previous: OrderState | null,
    actor: TimelineActor,
    items?: OrderItem[],
  ): Promise<void> {
    const payload: OrderEventPayload = {
      ...(await this.eventPayload(tx, order, actor, items)),
      ...(previous === null
        ? {}
        : { previous: { status: previous.status, payment_status: previous.paymentStatus } }),
    };
    if (previous === null) {
      await this.events.publish(tx, 'order.created', payload);
      return;
    }
    await this.events.publish(tx, 'order.updated', payload);
    if (order.status === 'cancelled' && previous.status !== 'cancelled') {
      await this.events.publish(tx, 'order.cancelled', payload);
    }
    if (order.paymentStatus === 'paid' && previous.paymentStatus !== 'paid') {
      await this.events.publish(tx, 'order.paid', payload);
    }
    if (
      ['refunded', 'partially_refunded'].includes(order.paymentStatus) &&
      order.paymentStatus !== previous.paymentStatus
    ) {
      await this.events.publish(tx, 'order.refunded', payload);
    }
  }

  /** The order as its events carry it: the order, its owner, where its e-mail goes, its items and discounts. */
  private async eventPayload(
    tx: Tx,
    order: Order,
    actor: TimelineActor,
    items?: OrderItem[],
  ): Promise<OrderEventPayload> {
    const [owner]: Array<{ id: number; username: string; email: string }> =
      order.userId === null ? [] : await tx.query(OWNER, [order.userId]);
    const user = owner === undefined ? null : toOrderOwner({ ...owner, id: Number(owner.id) });
    order.items = items ?? order.items ?? (await this.itemsOf(tx, order.id));
    if (order.taxLines === undefined || order.adjustments === undefined)
      await this.withCalculation(tx, order);
    const detail = toOrderDetail(order);
    return {
      userId: order.userId,
      order: toOrderResponse(order),
      user,
      email: order.email ?? user?.email ?? null,
      items: detail.items,
      discounts: detail.discounts,
      actor,
    };
  }
}

/**
 * A cancelled order's payments: its live one (its provider is told after the commit) and what its gift cards paid
 * (their balance went back in the same transaction).
 */
async function cancelPayments(manager: EntityManager, orderId: number, now: Date): Promise<void> {
  await manager.query(CANCEL_LIVE_PAYMENT, [sqlDatetime(now), orderId]);
  await manager.query(CANCEL_GIFT_CARD_PAYMENT, [sqlDatetime(now), orderId]);
}

/** Who places an order: its customer, or a guest. */
/** Who placed the order: the staff member of a draft, else its customer or guest. */
function placerOf(order: Order): TimelineActor {
  if (order.placedByUserId !== null) return { type: 'staff', id: order.placedByUserId };
  return order.userId === null ? { type: 'guest', id: null } : { type: 'customer', id: order.userId };
}

/** Where and how an order is priced: its region, its address for taxes, its shipping in minor units. */
interface OrderPricing {
  region: RegionInfo;
  address: TaxAddress | null;
  shipping: { amount: number; taxClass: string } | null;
}

/** An order's columns before it is priced. */
const UNPRICED = {
  totalCents: 0,
  shippingTotalCents: 0,
  subtotalMinor: 0,
  discountTotalMinor: 0,
  taxTotalMinor: 0,
  shippingTaxTotalMinor: 0,
  giftCardTotalMinor: 0,
  taxCalculationId: null,
  taxTransactionId: null,
} satisfies Partial<Order>;

/** The order's columns of a priced document. */
function totalsOf(document: PricedDocument) {
  return {
    totalCents: document.total,
    shippingTotalCents: document.shippingTotal,
    subtotalMinor: document.subtotal,
    discountTotalMinor: document.discountTotal,
    taxTotalMinor: document.taxTotal,
    shippingTaxTotalMinor: document.shipping.taxTotal,
    giftCardTotalMinor: document.giftCardTotal,
  } satisfies Partial<Order>;
}

function ownerOrGuest(order: Order): OrderOwnerDto | null {
  return order.user == null ? null : toOrderOwner(order.user);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function stockOf(items: OrderItem[]): StockRequest[] {
  return items.map((item) => ({
    productId: item.productId,
    variantId: item.variantId,
    quantity: item.quantity,
  }));
}

/**
 * Merges repeated products (and repeated variants) and orders the requests by product id, then variant id: the
 * locking order of a simple order, kept as before. Each request keeps the index of its first item, for the
 * fields of a 400.
 */
function mergeItems(dto: CreateOrderDto): StockRequest[] {
  const merged = new Map<string, StockRequest>();
  dto.items.forEach((item, index) => {
    if (item.product_id === undefined && item.variant_id === undefined) {
      throw fieldError(
        `items.${index}.product_id`,
        'required',
        `items.${index} needs product_id or variant_id`,
      );
    }
    const key = item.variant_id === undefined ? `p${item.product_id}` : `v${item.variant_id}`;
    const earlier = merged.get(key);
    if (earlier === undefined) {
      merged.set(key, {
        productId: item.product_id,
        ...(item.variant_id === undefined ? {} : { variantId: item.variant_id }),
        quantity: item.quantity,
        item: index,
      });
      return;
    }
    if (
      item.product_id !== undefined &&
      earlier.productId !== undefined &&
      item.product_id !== earlier.productId
    ) {
      throw fieldError(
        `items.${index}.product_id`,
        'matchesVariant',
        `items.${index}.product_id differs from items.${earlier.item}.product_id for the same variant`,
      );
    }
    earlier.productId ??= item.product_id;
    earlier.quantity += item.quantity;
  });
  const requests = [...merged.values()];
  const tooMany = requests.find((request) => request.quantity > MAX_QUANTITY);
  if (tooMany !== undefined) {
    const what =
      tooMany.variantId === undefined ? `product ${tooMany.productId}` : `variant ${tooMany.variantId}`;
    throw fieldError(
      'items',
      'maxQuantity',
      `items: ${what} totals ${tooMany.quantity} units, more than ${MAX_QUANTITY}`,
    );
  }
  return requests.sort(
    (a, b) => (a.productId ?? 0) - (b.productId ?? 0) || (a.variantId ?? 0) - (b.variantId ?? 0),
  );
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
