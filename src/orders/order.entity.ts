import { Column, Entity, OneToMany, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { bigintNumber, jsonText } from '../database/json-column.js';
import { Timestamped } from '../database/timestamped.js';
import type { OrderGiftCard } from '../gift-cards/gift-card-ledger.js';
import type { AccountSummary } from '../users/user-accounts.js';
import { OrderAdjustment, OrderItem, OrderTaxLine } from './order-item.entity.js';
import type { FulfillmentStatus, OrderStatus, PaymentStatus } from './order-status.js';
import type { OrderFulfilmentDto } from './dto/order.dto.js';
import type { ShippingAddressDetails } from './order-history.js';

@Entity('orders')
export class Order extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_number', type: 'varchar', length: 32 })
  orderNumber: string;

  /** NULL for a guest's order (placed from an anonymous cart). */
  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  /** Where the confirmation goes: the guest's address, or the customer's when placed from a cart. */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  /** `email` in lower case, indexed: a shopper's earlier orders by e-mail (first-order promotions). */
  @Column({ name: 'email_key', type: 'varchar', length: 254, nullable: true, select: false })
  emailKey: string | null;

  /** The order's `total` in minor units of its currency (the column kept its first name). */
  @Column({
    name: 'total_cents',
    type: 'bigint',
    transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
  })
  totalCents: number;

  /** The shipping option's price when ordered (before its discount, without added tax), in minor units. */
  @Column({
    name: 'shipping_total_cents',
    type: 'bigint',
    default: 0,
    transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
  })
  shippingTotalCents: number;

  /** Lower-case ISO 4217: every amount of the order is in its minor units. */
  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  /** The region it was priced in; null for orders placed before regions. */
  @Column({ name: 'region_id', type: 'integer', nullable: true })
  regionId: number | null;

  @Column({ name: 'prices_include_tax', type: 'boolean', default: false })
  pricesIncludeTax: boolean;

  /** The calculator's totals (src/pricing/calculator.ts), in minor units; totalCents is its `total`. */
  @Column({ name: 'subtotal_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  subtotalMinor: number;

  @Column({ name: 'discount_total_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  discountTotalMinor: number;

  @Column({ name: 'tax_total_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  taxTotalMinor: number;

  @Column({ name: 'shipping_tax_total_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  shippingTaxTotalMinor: number;

  @Column({ name: 'gift_card_total_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  giftCardTotalMinor: number;

  /** The tax provider's calculation (Stripe Tax), and the tax transaction recorded from it once paid. */
  @Column({ name: 'tax_calculation_id', type: 'varchar', length: 255, nullable: true, select: false })
  taxCalculationId: string | null;

  @Column({ name: 'tax_transaction_id', type: 'varchar', length: 255, nullable: true, select: false })
  taxTransactionId: string | null;

  @Column({ type: 'varchar', length: 16 })
  status: OrderStatus;

  @Column({ name: 'payment_status', type: 'varchar', length: 20 })
  paymentStatus: PaymentStatus;

  /** Written by the fulfilments (OrderHistory.followFulfilment); a new order takes the column's default. */
  @Column({
    name: 'fulfillment_status',
    type: 'varchar',
    length: 20,
    default: 'not_fulfilled',
    insert: false,
  })
  fulfillmentStatus: FulfillmentStatus;

  @Column({ name: 'shipping_address', type: 'varchar', length: 255 })
  shippingAddress: string;

  /** The structured address of an order placed from a cart (JSON); NULL for the free-text address of POST /orders. */
  @Column({
    name: 'shipping_address_details',
    type: 'text',
    nullable: true,
    transformer: jsonText<ShippingAddressDetails>(),
  })
  shippingAddressDetails: ShippingAddressDetails | null;

  @Column({ name: 'payment_method', type: 'varchar', length: 32 })
  paymentMethod: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 128, nullable: true, select: false })
  idempotencyKey: string | null;

  /** SHA-256 of the normalised request, to tell a replay from a different request under the same key. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64, nullable: true, select: false })
  requestHash: string | null;

  /** SHA-256 of a guest order's token (hex), which reads the order without an account. */
  @Column({ name: 'order_token_hash', type: 'varchar', length: 64, nullable: true, select: false })
  orderTokenHash: string | null;

  /** The cart the order was placed from: unique, so a cart places one order whatever the retries. */
  @Column({ name: 'cart_id', type: 'varchar', length: 36, nullable: true, select: false })
  cartId: string | null;

  /** The staff member who placed the order for its customer (a draft order); null when the customer did. */
  @Column({ name: 'placed_by_user_id', type: 'integer', nullable: true })
  placedByUserId: number | null;

  @OneToMany(() => OrderItem, (item) => item.order)
  items: Relation<OrderItem[]>;

  /** The tax lines of its items and shipping, when a query joins them in. */
  @OneToMany(() => OrderTaxLine, (line) => line.order)
  taxLines?: Relation<OrderTaxLine[]>;

  @OneToMany(() => OrderAdjustment, (adjustment) => adjustment.order)
  adjustments?: Relation<OrderAdjustment[]>;

  /** The order's fulfilments, when its detail is read; not a column. */
  fulfilments?: OrderFulfilmentDto[];

  /** What the order took from each gift card, when read with them; not a column. */
  giftCards?: OrderGiftCard[];

  /** The owner, when a query joins it in (`leftJoinAndMapOne`); not a column. */
  user?: AccountSummary;

  /** The staff member who placed it, when a query joins them in; not a column. */
  placedBy?: AccountSummary;
}
