import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination.js';
import { ToInteger } from '../../common/query-transforms.js';
import type { AccountSummary } from '../../users/user-accounts.js';
import type { OrderAdjustment, OrderItem, OrderTaxLine } from '../order-item.entity.js';
import { fromMinor } from '../../pricing/calculator.js';
import {
  AdjustmentDto,
  adjustmentResponse,
  DiscountDto,
  DocumentTotalsDto,
  LineAmountsDto,
  storedDiscountsResponse,
  TaxLineDto,
  taxLineResponse,
} from '../../pricing/dto/priced.dto.js';
import type { Order } from '../order.entity.js';
import { amountDueOf, type ShippingAddressDetails } from '../order-history.js';
import { AddressFieldsDto } from '../../addresses/dto/address.dto.js';
import { OrderGiftCardDto } from '../../gift-cards/dto/gift-card.dto.js';
import {
  FULFILLMENT_STATUSES,
  type FulfillmentStatus,
  ORDER_STATUSES,
  type OrderStatus,
  PAYMENT_STATUSES,
  type PaymentStatus,
} from '../order-status.js';
import { Optional, CodePointLength } from '../../common/validation.js';

export const MAX_ITEMS = 100;
export const MAX_QUANTITY = 1000;

export class OrderItemInputDto {
  @ApiPropertyOptional({
    type: 'integer',
    example: 1,
    minimum: 1,
    description:
      'An id from GET /products, of a product without active variants; with `variant_id`, optional and then ' +
      "the variant's product",
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  product_id?: number;

  @ApiPropertyOptional({
    type: 'integer',
    example: 31,
    minimum: 1,
    description: "A variant from the product's `variants`: required for a product with active variants",
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  variant_id?: number;

  @ApiProperty({ type: 'integer', example: 2, minimum: 1, maximum: MAX_QUANTITY })
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;
}

export class CreateOrderDto {
  @ApiProperty({
    type: [OrderItemInputDto],
    minItems: 1,
    maxItems: MAX_ITEMS,
    description:
      'Each item names `product_id` or `variant_id`; the same product (or variant) twice is merged',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ITEMS)
  @IsObject({
    each: true,
    message: 'each value in items must be an object {product_id, quantity} or {variant_id, quantity}',
  })
  @ValidateNested({ each: true })
  @Type(() => OrderItemInputDto)
  items: OrderItemInputDto[];

  @ApiProperty({ minLength: 1, maxLength: 255, example: '1 Main St, Springfield' })
  @IsString()
  @CodePointLength(1, 255)
  shipping_address: string;

  @ApiProperty({
    example: 'credit_card',
    description:
      'One of PAYMENT_METHODS (listed by GET /payment-methods; the enum is filled in from the setting)',
  })
  @IsString()
  @CodePointLength(1, 32)
  payment_method: string;
}

export class OrderListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ORDER_STATUSES })
  @Optional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;
}

export const ADMIN_ORDER_SORTS = ['-created_at', 'created_at', 'total_amount', '-total_amount'] as const;
export type AdminOrderSort = (typeof ADMIN_ORDER_SORTS)[number];

export class AdminOrderListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ example: 7, minimum: 1, description: "Only this user's orders" })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  user_id?: number;

  @ApiPropertyOptional({ enum: ORDER_STATUSES })
  @Optional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;

  @ApiPropertyOptional({ enum: PAYMENT_STATUSES })
  @Optional()
  @IsIn(PAYMENT_STATUSES)
  payment_status?: PaymentStatus;

  @ApiPropertyOptional({
    example: '2026-11-01T00:00:00Z',
    description: 'ISO 8601; orders created at or after this instant',
  })
  @Optional()
  @IsISO8601({ strict: true })
  created_from?: string;

  @ApiPropertyOptional({
    example: '2026-12-01T00:00:00Z',
    description: 'ISO 8601; orders created before this instant',
  })
  @Optional()
  @IsISO8601({ strict: true })
  created_to?: string;

  @ApiPropertyOptional({
    maxLength: 100,
    description: "Case-insensitive substring of the order number, the owner's username or email",
  })
  @Optional()
  @IsString()
  @MaxLength(100)
  search?: string;

  @ApiPropertyOptional({ enum: ADMIN_ORDER_SORTS, description: 'Default: -created_at' })
  @Optional()
  @IsIn(ADMIN_ORDER_SORTS)
  sort: AdminOrderSort = '-created_at';
}

export class UpdateOrderStatusDto {
  @ApiPropertyOptional({ enum: ORDER_STATUSES, example: 'paid' })
  @Optional()
  @IsIn(ORDER_STATUSES)
  status?: OrderStatus;

  @ApiPropertyOptional({ enum: PAYMENT_STATUSES, example: 'paid' })
  @Optional()
  @IsIn(PAYMENT_STATUSES)
  payment_status?: PaymentStatus;
}

/** The address as one line (`shipping_address` of an order placed from a cart), at most 255 characters. */
export function formatAddress(address: ShippingAddressDetails): string {
  const locality = [address.postal_code, address.city, address.region].filter((part) => part).join(' ');
  const line = [address.name, address.line1, address.line2, locality, address.country]
    .filter((part) => part)
    .join(', ');
  const characters = [...line];
  return characters.length <= 255 ? line : `${characters.slice(0, 254).join('')}…`;
}

export class OrderResponseDto extends DocumentTotalsDto {
  @ApiProperty({ type: 'integer', example: 41 }) id: number;
  @ApiProperty({ example: 'ORD-20261122-7KQ2M9XD' }) order_number: string;
  @ApiProperty({
    type: [OrderGiftCardDto],
    description: 'The gift cards that paid gift_card_total, with what each took at checkout',
  })
  gift_cards: OrderGiftCardDto[];
  @ApiProperty({ example: 60.17, description: 'The same as total' }) total_amount: number;
  @ApiProperty({ enum: ORDER_STATUSES, example: 'pending' }) status: OrderStatus;
  @ApiProperty({ example: '1 Main St, Springfield' }) shipping_address: string;
  @ApiProperty({ example: 'credit_card' }) payment_method: string;
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'pending' }) payment_status: PaymentStatus;
  @ApiProperty({
    enum: FULFILLMENT_STATUSES,
    example: 'not_fulfilled',
    description: 'How many of its units live fulfilments carry: none, some or all',
  })
  fulfillment_status: FulfillmentStatus;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'guest@example.com',
    description: "Where the confirmation goes: a guest's address, or the customer's for an order from a cart",
  })
  email: string | null;
  @ApiProperty({
    type: AddressFieldsDto,
    nullable: true,
    description: 'The structured address of an order placed from a cart; null for POST /orders',
  })
  shipping_address_details: ShippingAddressDetails | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

/** Whose order it is, shown to admins. */
export class OrderOwnerDto {
  @ApiProperty({ example: 7 }) id: number;
  @ApiProperty({ example: 'jane' }) username: string;
  @ApiProperty({ example: 'jane@example.com' }) email: string;
}

export class AdminOrderResponseDto extends OrderResponseDto {
  @ApiProperty({ type: OrderOwnerDto, nullable: true, description: "null for a guest's order (see email)" })
  user: OrderOwnerDto | null;
  @ApiProperty({ type: [DiscountDto], description: "The order's promotions, each with what it took" })
  discounts: DiscountDto[];
}

export class OrderItemResponseDto extends LineAmountsDto {
  @ApiProperty({ type: 'integer', example: 90 }) id: number;
  @ApiProperty({ type: 'integer', example: 12 }) product_id: number;
  @ApiProperty({ example: 'Espresso cup', description: 'Name when ordered' }) product_name: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 31,
    description: 'null for a product without variants',
  })
  variant_id: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'TEE-RED-M', description: 'SKU when ordered' })
  sku: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'Red / M',
    description: 'Variant title when ordered',
  })
  variant_title: string | null;
  @ApiProperty({ type: 'integer', example: 3 }) quantity: number;
  @ApiProperty({
    example: 19.99,
    description: "Unit price when ordered (a price list's when one applied)",
  })
  price: number;
  @ApiProperty({
    example: 24.99,
    description: "The product's (or variant's) own unit price when ordered, before any price list",
  })
  original_price: number;
  @ApiProperty({ example: 59.97, description: 'price x quantity' }) line_total: number;
}

export class FulfilmentItemDto {
  @ApiProperty({ type: 'integer', example: 90, description: "An id of the order's `items`" })
  order_item_id: number;
  @ApiProperty({ type: 'integer', example: 2, minimum: 1 }) quantity: number;
}

/** A shipment of some of an order's units (the fulfilments module writes them; the order's detail shows them). */
export class OrderFulfilmentDto {
  @ApiProperty({ type: 'integer', example: 5 }) id: number;
  @ApiProperty({ type: 'integer', example: 41 }) order_id: number;
  @ApiProperty({ type: [FulfilmentItemDto] }) items: FulfilmentItemDto[];
  @ApiProperty({ type: 'string', nullable: true, example: 'DHL' }) carrier: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: '00340434161094042557' })
  tracking_number: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'https://www.dhl.com/track?id=00340434161094042557',
  })
  tracking_url: string | null;
  @ApiProperty({ example: true, description: 'Whether the customer was sent the shipment e-mail' })
  notify_customer: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-23T08:00:00.000Z' }) shipped_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  delivered_at: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: null,
    description: 'Set when staff cancelled it before delivery: its units count as unfulfilled again',
  })
  cancelled_at: string | null;
}

export class OrderDetailResponseDto extends OrderResponseDto {
  @ApiProperty({ type: [OrderItemResponseDto] }) items: OrderItemResponseDto[];
  @ApiProperty({
    type: [OrderFulfilmentDto],
    description: "The order's fulfilments, oldest first (cancelled ones included, with cancelled_at)",
  })
  fulfilments: OrderFulfilmentDto[];
  @ApiProperty({
    type: [DiscountDto],
    description:
      "The order's promotions, each with what it took (the lines' adjustments tell each line's share)",
  })
  discounts: DiscountDto[];
  @ApiProperty({ type: [TaxLineDto], description: "The shipping's taxes" }) shipping_tax_lines: TaxLineDto[];
  @ApiProperty({ type: [AdjustmentDto], description: "The shipping's discounts" })
  shipping_adjustments: AdjustmentDto[];
  @ApiPropertyOptional({
    type: OrderOwnerDto,
    nullable: true,
    description: "Present when an admin reads the order; null for a guest's order",
  })
  user?: OrderOwnerDto | null;
  @ApiPropertyOptional({
    type: OrderOwnerDto,
    nullable: true,
    description:
      'Present when an admin reads the order: the staff member who placed it for the customer (a draft order); ' +
      'null when the customer placed it',
  })
  placed_by?: OrderOwnerDto | null;
  @ApiPropertyOptional({
    example: 'rV3c1n0Jm0f7xq2QyYwW8s9dKp4tLhZbE5uA6gNfC1I',
    description:
      "Only in a guest's checkout response: the secret that reads the order (GET /orders/{id} with X-Order-Token)",
  })
  order_token?: string;
}

export function toOrderOwner(user: AccountSummary): OrderOwnerDto {
  return { id: user.id, username: user.username, email: user.email };
}

export function toOrderResponse(order: Order): OrderResponseDto {
  const money = (amount: number) => fromMinor(amount, order.currencyCode);
  const total = money(order.totalCents);
  return {
    id: order.id,
    order_number: order.orderNumber,
    total_amount: total,
    status: order.status,
    shipping_address: order.shippingAddress,
    payment_method: order.paymentMethod,
    payment_status: order.paymentStatus,
    fulfillment_status: order.fulfillmentStatus ?? 'not_fulfilled',
    currency_code: order.currencyCode,
    region_id: order.regionId,
    prices_include_tax: Boolean(order.pricesIncludeTax),
    subtotal: money(order.subtotalMinor),
    discount_total: money(order.discountTotalMinor),
    shipping_total: money(order.shippingTotalCents),
    shipping_tax_total: money(order.shippingTaxTotalMinor),
    tax_total: money(order.taxTotalMinor),
    gift_card_total: money(order.giftCardTotalMinor),
    gift_cards: (order.giftCards ?? []).map((card) => ({
      id: card.id,
      code_last4: card.codeLast4,
      amount: money(card.amount),
    })),
    total,
    amount_due: money(amountDueOf(order)),
    email: order.email,
    shipping_address_details: order.shippingAddressDetails,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
  };
}

/** An order's item with its share of the calculation, as stored when the order was placed. */
export function toOrderItemResponse(
  item: OrderItem,
  currency: string,
  taxLines: readonly OrderTaxLine[] = [],
  adjustments: readonly OrderAdjustment[] = [],
): OrderItemResponseDto {
  const money = (amount: number) => fromMinor(amount, currency);
  return {
    id: item.id,
    product_id: item.productId,
    product_name: item.productName,
    variant_id: item.variantId,
    sku: item.sku,
    variant_title: item.variantTitle,
    quantity: item.quantity,
    price: money(item.unitPriceCents),
    original_price: money(item.originalUnitPriceCents ?? item.unitPriceCents),
    line_total: money(item.unitPriceCents * item.quantity),
    discount_total: money(item.discountTotalMinor),
    tax_total: money(item.taxTotalMinor),
    total: money(item.totalMinor),
    ...storedCalculationOf(item.id, currency, taxLines, adjustments),
  };
}

/** The stored tax lines and adjustments of an item (by id) or of the shipping (null), as the API shows them. */
function storedCalculationOf(
  orderItemId: number | null,
  currency: string,
  taxLines: readonly OrderTaxLine[],
  adjustments: readonly OrderAdjustment[],
): { tax_lines: TaxLineDto[]; adjustments: AdjustmentDto[] } {
  return {
    tax_lines: taxLines
      .filter((line) => line.orderItemId === orderItemId)
      .map((line) => taxLineResponse({ ...line, amount: line.amountMinor }, currency)),
    adjustments: adjustments
      .filter((adjustment) => adjustment.orderItemId === orderItemId)
      .map((adjustment) => adjustmentResponse({ ...adjustment, amount: adjustment.amountMinor }, currency)),
  };
}

/** An order with its items, their tax lines and adjustments, and the shipping's (DESIGN.md §16). */
export function toOrderDetail(order: Order): OrderDetailResponseDto {
  const taxLines = order.taxLines ?? [];
  const adjustments = order.adjustments ?? [];
  const shipping = storedCalculationOf(null, order.currencyCode, taxLines, adjustments);
  return {
    ...toOrderResponse(order),
    items: order.items.map((item) => toOrderItemResponse(item, order.currencyCode, taxLines, adjustments)),
    fulfilments: order.fulfilments ?? [],
    discounts: storedDiscountsResponse(
      adjustments.map((adjustment) => ({ ...adjustment, amount: adjustment.amountMinor })),
      order.currencyCode,
    ),
    shipping_tax_lines: shipping.tax_lines,
    shipping_adjustments: shipping.adjustments,
  };
}
