import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { jsonText } from '../database/json-column.js';
import { Timestamped } from '../database/timestamped.js';
import type { ShippingAddressDetails } from '../orders/order-history.js';

export const CART_STATUSES = ['open', 'completed'] as const;
export type CartStatus = (typeof CART_STATUSES)[number];

@Entity('carts')
export class Cart extends Timestamped {
  /** A random UUID: not guessable, and known before the row is written. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  /** The customer the cart belongs to; null for an anonymous cart (reached with its token). */
  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  /** SHA-256 (hex) of an anonymous cart's token; null once the cart belongs to a user. */
  @Column({ name: 'token_hash', type: 'varchar', length: 64, nullable: true, select: false })
  tokenHash: string | null;

  @Column({ type: 'varchar', length: 16 })
  status: CartStatus;

  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  @Column({
    name: 'shipping_address',
    type: 'text',
    nullable: true,
    transformer: jsonText<ShippingAddressDetails>(),
  })
  shippingAddress: ShippingAddressDetails | null;

  @Column({ name: 'shipping_option_id', type: 'integer', nullable: true })
  shippingOptionId: number | null;

  /** The region the cart is priced in; null: the default region. */
  @Column({ name: 'region_id', type: 'integer', nullable: true })
  regionId: number | null;

  /** A draft staff build for the customer: the staff member who started it; null for a shopper's own cart. */
  @Column({ name: 'draft_by_user_id', type: 'integer', nullable: true })
  draftByUserId: number | null;
}

@Entity('cart_items')
export class CartItem extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'cart_id', type: 'varchar', length: 36 })
  cartId: string;

  /** The product, also of a variant's line. */
  @Column({ name: 'product_id', type: 'integer' })
  productId: number;

  /** The variant of a product sold in variants; null for a product without variants. */
  @Column({ name: 'variant_id', type: 'integer', nullable: true })
  variantId: number | null;

  @Column({ type: 'integer' })
  quantity: number;

  /** The unit price when the line was added (or last raised): the line shows `price_changed` when it differs. */
  @Column({ name: 'added_price_cents', type: 'integer' })
  addedPriceCents: number;
}
