import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CodePointLength, DateTime, NoInvisibleCharacters, Optional } from '../../common/validation.js';
import {
  PROMOTION_TARGETS,
  PROMOTION_TYPES,
  type PromotionTarget,
  type PromotionType,
} from '../promotion-rules.js';
import type { Promotion } from '../promotion.entity.js';

/** Letters, digits, hyphens and underscores: what a shopper types. */
const CODE = /^[A-Za-z0-9_-]+$/;
const MAX_IDS = 100;
const NULLABLE = (_object: object, value: unknown) => value !== undefined && value !== null;

const idList = (description: string) =>
  ({
    type: 'integer',
    isArray: true,
    nullable: true,
    maxItems: MAX_IDS,
    example: [12],
    description,
  }) as const;

export class PromotionConditionsDto {
  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    minimum: 0,
    example: 50,
    description: "The cart's subtotal (before discounts) must reach this, in its currency's major units",
  })
  @ValidateIf(NULLABLE)
  @IsNumber({ maxDecimalPlaces: 4, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1_000_000_000)
  min_subtotal?: number | null;

  @ApiPropertyOptional(idList('Only lines of these products are discounted (and count)'))
  @ValidateIf(NULLABLE)
  @IsArray()
  @ArrayMaxSize(MAX_IDS)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(2_147_483_647, { each: true })
  product_ids?: number[] | null;

  @ApiPropertyOptional(idList('Only lines of products in these categories or their subcategories'))
  @ValidateIf(NULLABLE)
  @IsArray()
  @ArrayMaxSize(MAX_IDS)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(2_147_483_647, { each: true })
  category_ids?: number[] | null;

  @ApiPropertyOptional(idList('Only customers of one of these groups'))
  @ValidateIf(NULLABLE)
  @IsArray()
  @ArrayMaxSize(MAX_IDS)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(2_147_483_647, { each: true })
  customer_group_ids?: number[] | null;

  @ApiPropertyOptional({
    example: false,
    description: 'Only when the account and the e-mail have no earlier order that was not cancelled',
  })
  @Optional()
  @IsBoolean()
  first_order_only?: boolean;
}

export class BuyXGetYDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, example: 2 })
  @IsInt()
  @Min(1)
  @Max(1000)
  buy_quantity: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, example: 1 })
  @IsInt()
  @Min(1)
  @Max(1000)
  get_quantity: number;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 100,
    example: 100,
    description: 'Percent off each unit got (default 100: free)',
  })
  @Optional()
  @IsNumber({ maxDecimalPlaces: 4, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(100)
  get_percentage?: number;
}

export class CreatePromotionDto {
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: 64,
    example: 'SUMMER10',
    description: 'Letters, digits, - and _; unique ignoring case. null or absent: an automatic promotion',
  })
  @ValidateIf(NULLABLE)
  @IsString()
  @CodePointLength(1, 64)
  @Matches(CODE, { message: 'code must contain only letters, digits, hyphens and underscores' })
  code?: string | null;

  @ApiPropertyOptional({ maxLength: 255, example: '10 % off everything' })
  @Optional()
  @IsString()
  @CodePointLength(0, 255)
  @NoInvisibleCharacters()
  description?: string;

  @ApiProperty({ enum: PROMOTION_TYPES, example: 'percentage' })
  @IsIn(PROMOTION_TYPES)
  type: PromotionType;

  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    example: 10,
    description:
      'percentage: percent (0-100, up to 4 decimals); fixed: the amount in currency_code; null for the others',
  })
  @ValidateIf(NULLABLE)
  @IsNumber({ maxDecimalPlaces: 4, allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1_000_000_000)
  value?: number | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    example: 'eur',
    description: 'fixed only (required there): lower-case ISO 4217; it does not apply to carts in another',
  })
  @ValidateIf(NULLABLE)
  @IsString()
  @Matches(/^[a-z]{3}$/, { message: 'currency_code must be a lower-case ISO 4217 code' })
  currency_code?: string | null;

  @ApiPropertyOptional({
    enum: PROMOTION_TARGETS,
    example: 'order',
    description:
      'percentage and fixed: order (off the eligible lines together, spread over them) or items (off each ' +
      'eligible line; fixed: per unit). Default: order',
  })
  @Optional()
  @IsIn(PROMOTION_TARGETS)
  target?: PromotionTarget;

  @ApiPropertyOptional({ type: PromotionConditionsDto })
  @Optional()
  @IsObject()
  @ValidateNested()
  @Type(() => PromotionConditionsDto)
  conditions?: PromotionConditionsDto;

  @ApiPropertyOptional({
    type: BuyXGetYDto,
    nullable: true,
    description: 'Required for buy_x_get_y (its units are those the product and category conditions allow)',
  })
  @ValidateIf(NULLABLE)
  @IsObject()
  @ValidateNested()
  @Type(() => BuyXGetYDto)
  buy_x_get_y?: BuyXGetYDto | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-12-01T00:00:00.000Z',
  })
  @ValidateIf(NULLABLE)
  @DateTime()
  starts_at?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2027-01-01T00:00:00.000Z',
  })
  @ValidateIf(NULLABLE)
  @DateTime()
  ends_at?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    example: 100,
    description: 'Uses in all',
  })
  @ValidateIf(NULLABLE)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  usage_limit?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    example: 1,
    description:
      "Uses per customer: by account, a guest's by e-mail (counting for the account with that e-mail)",
  })
  @ValidateIf(NULLABLE)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  usage_limit_per_customer?: number | null;

  @ApiPropertyOptional({
    example: true,
    description: 'false: applies only alone, when it is the best deal for the shopper (default true)',
  })
  @Optional()
  @IsBoolean()
  combinable?: boolean;

  @ApiPropertyOptional({ example: true, description: 'Default true' })
  @Optional()
  @IsBoolean()
  is_active?: boolean;
}

/** Partial: only the fields sent change (conditions field by field); null sets a nullable field back. */
export class UpdatePromotionDto extends PartialType(CreatePromotionDto, { skipNullProperties: false }) {}

export class PromotionConditionsResponseDto {
  @ApiProperty({ type: 'number', nullable: true, example: 50 }) min_subtotal: number | null;
  @ApiProperty({ type: 'integer', isArray: true, nullable: true, example: [12] }) product_ids:
    number[] | null;
  @ApiProperty({ type: 'integer', isArray: true, nullable: true, example: [3] }) category_ids:
    number[] | null;
  @ApiProperty({ type: 'integer', isArray: true, nullable: true, example: [2] })
  customer_group_ids: number[] | null;
  @ApiProperty({ example: false }) first_order_only: boolean;
}

export class BuyXGetYResponseDto {
  @ApiProperty({ type: 'integer', example: 2 }) buy_quantity: number;
  @ApiProperty({ type: 'integer', example: 1 }) get_quantity: number;
  @ApiProperty({ example: 100 }) get_percentage: number;
}

export class PromotionResponseDto {
  @ApiProperty({ type: 'integer', example: 5 }) id: number;
  @ApiProperty({ type: 'string', nullable: true, example: 'SUMMER10', description: 'null: automatic' })
  code: string | null;
  @ApiProperty({ example: '10 % off everything' }) description: string;
  @ApiProperty({ enum: PROMOTION_TYPES, example: 'percentage' }) type: PromotionType;
  @ApiProperty({ type: 'number', nullable: true, example: 10 }) value: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: null }) currency_code: string | null;
  @ApiProperty({ enum: PROMOTION_TARGETS, example: 'order' }) target: PromotionTarget;
  @ApiProperty({ type: PromotionConditionsResponseDto }) conditions: PromotionConditionsResponseDto;
  @ApiProperty({ type: BuyXGetYResponseDto, nullable: true }) buy_x_get_y: BuyXGetYResponseDto | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null }) starts_at:
    string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null }) ends_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 100 }) usage_limit: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 1 }) usage_limit_per_customer: number | null;
  @ApiProperty({ example: true }) combinable: boolean;
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({ type: 'integer', example: 3, description: 'Uses by placed orders not cancelled' })
  used_count: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function toPromotionResponse(promotion: Promotion): PromotionResponseDto {
  return {
    id: promotion.id,
    code: promotion.code,
    description: promotion.description,
    type: promotion.type,
    value: promotion.value,
    currency_code: promotion.currencyCode,
    target: promotion.target,
    conditions: {
      min_subtotal: promotion.minSubtotal,
      product_ids: promotion.productIds,
      category_ids: promotion.categoryIds,
      customer_group_ids: promotion.customerGroupIds,
      first_order_only: Boolean(promotion.firstOrderOnly),
    },
    buy_x_get_y:
      promotion.buyQuantity === null
        ? null
        : {
            buy_quantity: promotion.buyQuantity,
            get_quantity: promotion.getQuantity!,
            get_percentage: promotion.getPercentage ?? 100,
          },
    starts_at: promotion.startsAt?.toISOString() ?? null,
    ends_at: promotion.endsAt?.toISOString() ?? null,
    usage_limit: promotion.usageLimit,
    usage_limit_per_customer: promotion.usageLimitPerCustomer,
    combinable: Boolean(promotion.combinable),
    is_active: Boolean(promotion.isActive),
    used_count: promotion.usedCount,
    created_at: promotion.createdAt.toISOString(),
    updated_at: promotion.updatedAt.toISOString(),
  };
}
