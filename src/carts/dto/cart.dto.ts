import {
  AdjustmentDto,
  CartDiscountDto,
  DocumentTotalsDto,
  LineAmountsDto,
  TaxLineDto,
} from '../../pricing/dto/priced.dto.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsEmail,
  IsInt,
  IsObject,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Optional, CodePointLength } from '../../common/validation.js';
import { AddressFieldsDto } from '../../addresses/dto/address.dto.js';
import { CartGiftCardDto } from '../../gift-cards/dto/gift-card.dto.js';
import { MAX_QUANTITY, OrderItemInputDto } from '../../orders/dto/order.dto.js';
import type { ShippingAddressDetails } from '../../orders/order-history.js';
import { CART_STATUSES, type CartStatus } from '../cart.entity.js';

/** Lines per cart, as many as an order may have. */
export const MAX_CART_LINES = 100;

/**
 * `{product_id | variant_id, quantity}` with the rules of an order's item; the quantity is added to the line
 * when the product (or variant) is in the cart already, the line holding at most 1000.
 */
export class AddCartItemDto extends OrderItemInputDto {}

export class UpdateCartItemDto {
  @ApiProperty({ type: 'integer', example: 3, minimum: 1, maximum: MAX_QUANTITY })
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;
}

const REGION_ID = {
  type: 'integer',
  example: 2,
  minimum: 1,
  description:
    'A region of GET /regions: the cart is priced in its currency and taxes (default: the default region)',
} as const;

export class CreateCartDto {
  @ApiPropertyOptional(REGION_ID)
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  region_id?: number;
}

export class UpdateCartDto {
  @ApiPropertyOptional({ ...REGION_ID, description: 'Moves the cart to another region and prices it there' })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  region_id?: number;

  @ApiPropertyOptional({ example: 'guest@example.com', maxLength: 254 })
  @Optional()
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email?: string;

  @ApiPropertyOptional({
    type: AddressFieldsDto,
    description: 'The address the order ships to (or shipping_address_id, not both)',
  })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => AddressFieldsDto)
  shipping_address?: AddressFieldsDto;

  @ApiPropertyOptional({
    type: 'integer',
    example: 7,
    description: "An address of the customer's address book (GET /me/addresses), copied onto the cart",
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  shipping_address_id?: number;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 3,
    description:
      "One of GET /carts/{id}/shipping-options (it must ship to the address's country); null: none",
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  shipping_option_id?: number | null;
}

export class CheckoutDto {
  @ApiProperty({ example: 'credit_card', description: 'One of PAYMENT_METHODS (GET /payment-methods)' })
  @IsString()
  @CodePointLength(1, 32)
  payment_method: string;

  @ApiPropertyOptional({
    example: 'guest@example.com',
    maxLength: 254,
    description: "The confirmation's address, when the cart has none yet (a guest must have one)",
  })
  @Optional()
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email?: string;
}

export class DiscountCodeDto {
  @ApiProperty({ maxLength: 64, example: 'summer10', description: 'A promotion code, in any case' })
  @IsString()
  @CodePointLength(1, 64)
  code: string;
}

export const CART_PROBLEMS = ['price_changed', 'insufficient_stock', 'unavailable', 'no_price'] as const;
export type CartProblemCode = (typeof CART_PROBLEMS)[number];

export class CartProblemDto {
  @ApiProperty({ enum: CART_PROBLEMS, example: 'insufficient_stock' }) code: CartProblemCode;
  @ApiProperty({ example: 'Only 2 left; the line asks for 3' }) message: string;
}

export class CartItemResponseDto extends LineAmountsDto {
  @ApiProperty({ type: 'integer', example: 90 }) id: number;
  @ApiProperty({ type: 'integer', example: 12 }) product_id: number;
  @ApiProperty({ type: 'string', nullable: true, example: 'Espresso cup', description: 'null: product gone' })
  product_name: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 31,
    description: 'null: a product without variants',
  })
  variant_id: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'TEE-RED-M' }) sku: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'Red / M' }) variant_title: string | null;
  @ApiProperty({ type: 'integer', example: 3 }) quantity: number;
  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 19.99,
    description:
      "The live unit price in the cart's currency, the applicable price lists' when one gives it (null: not " +
      'for sale, or no price in that currency)',
  })
  price: number | null;
  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 24.99,
    description:
      "The product's (or variant's) own unit price in the cart's currency, before any price list: `price` " +
      'when no list applies (null with `price`)',
  })
  original_price: number | null;
  @ApiProperty({
    example: 18.5,
    description: 'The unit price (`price`) when the line was added (or the cart moved region)',
  })
  added_price: number;
  @ApiProperty({ example: 59.97, description: 'price x quantity (0 when the product is gone or unpriced)' })
  line_total: number;
  @ApiProperty({ type: 'integer', example: 14, description: 'Stock now (0 when not for sale); not held' })
  available: number;
  @ApiProperty({ type: [CartProblemDto] }) problems: CartProblemDto[];
}

export class CartShippingOptionDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ example: 'Standard (3–5 days)' }) name: string;
  @ApiProperty({ example: 4.95, description: "In the cart's currency" }) price: number;
}

export class CartResponseDto extends DocumentTotalsDto {
  @ApiProperty({ format: 'uuid', example: '3f1c8a2e-6d1b-4f7a-9a53-0d2e1b7c4a10' }) id: string;
  @ApiProperty({ enum: CART_STATUSES, example: 'open' }) status: CartStatus;
  @ApiProperty({ type: [CartItemResponseDto] }) items: CartItemResponseDto[];
  @ApiProperty({
    type: [CartGiftCardDto],
    description: 'The gift cards applied, in the order applied; together they pay gift_card_total',
  })
  gift_cards: CartGiftCardDto[];
  @ApiProperty({ type: CartShippingOptionDto, nullable: true }) shipping_option: CartShippingOptionDto | null;
  @ApiProperty({ type: [TaxLineDto], description: "The shipping's taxes" }) shipping_tax_lines: TaxLineDto[];
  @ApiProperty({ type: [AdjustmentDto], description: "The shipping's discounts" })
  shipping_adjustments: AdjustmentDto[];
  @ApiProperty({
    type: [CartDiscountDto],
    description:
      'The codes the cart holds (also those that do not apply now) and the automatic promotions it gets',
  })
  discounts: CartDiscountDto[];
  @ApiProperty({ type: AddressFieldsDto, nullable: true }) shipping_address: ShippingAddressDetails | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'guest@example.com' }) email: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export class CreatedCartResponseDto extends CartResponseDto {
  @ApiPropertyOptional({
    example: 'k3Jt0bZ8Qm2vXn5Lr7Yc1Wd4Hf6Gs9Pa0Ue3Ti8Oq5E',
    description: 'Anonymous carts only: the secret every later call sends as X-Cart-Token (shown once)',
  })
  cart_token?: string;
}

export class CreateDraftCartDto extends CreateCartDto {
  @ApiPropertyOptional({
    type: 'integer',
    example: 7,
    description: 'The registered customer the order is for (or email, not both)',
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  user_id?: number;

  @ApiPropertyOptional({
    example: 'guest@example.com',
    maxLength: 254,
    description: 'A guest customer’s address: the order is a guest order (or user_id, not both)',
  })
  @Optional()
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email?: string;
}

export class CompleteDraftDto {
  @ApiPropertyOptional({
    example: false,
    description:
      'true: the order is marked paid by hand (as PATCH /orders/{id}/status) and no payment link is sent',
  })
  @Optional()
  @IsBoolean()
  mark_paid?: boolean;

  @ApiPropertyOptional({
    example: 'credit_card',
    description: 'One of PAYMENT_METHODS (default: the first of them)',
  })
  @Optional()
  @IsString()
  @CodePointLength(1, 32)
  payment_method?: string;
}

export class DraftCartResponseDto extends CartResponseDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 7,
    description: 'The registered customer; null: a guest order for `email`',
  })
  user_id: number | null;
  @ApiProperty({ type: 'integer', example: 1, description: 'The staff member who started the draft' })
  draft_by_user_id: number;
}

export class DraftCartSummaryDto {
  @ApiProperty({ format: 'uuid', example: '3f1c8a2e-6d1b-4f7a-9a53-0d2e1b7c4a10' }) id: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 7 }) user_id: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'guest@example.com' }) email: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 2, description: 'null: the default region' })
  region_id: number | null;
  @ApiProperty({ type: 'integer', example: 1 }) draft_by_user_id: number;
  @ApiProperty({ type: 'integer', example: 3 }) line_count: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}
