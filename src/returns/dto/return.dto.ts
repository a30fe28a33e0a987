import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '../../common/pagination.js';
import { ToInteger } from '../../common/query-transforms.js';
import { CodePointLength, Optional } from '../../common/validation.js';
import { MAX_ITEMS, MAX_QUANTITY } from '../../orders/dto/order.dto.js';
import { fromMinor } from '../../pricing/calculator.js';
import { type RefundStatus, type Return, RETURN_STATUSES, type ReturnStatus } from '../return.entity.js';

export class ReturnItemInputDto {
  @ApiProperty({ type: 'integer', example: 90, description: "An id of the order's `items`" })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  order_item_id: number;

  @ApiProperty({
    type: 'integer',
    example: 1,
    minimum: 1,
    description: 'At most its fulfilled units not in a return',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;

  @ApiPropertyOptional({ maxLength: 255, example: 'Arrived broken' })
  @Optional()
  @IsString()
  @CodePointLength(0, 255)
  reason?: string;
}

export class CreateReturnDto {
  @ApiProperty({ type: [ReturnItemInputDto], minItems: 1, description: 'Each order item at most once' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ITEMS)
  @IsObject({
    each: true,
    message: 'each value in items must be an object {order_item_id, quantity, reason}',
  })
  @ValidateNested({ each: true })
  @Type(() => ReturnItemInputDto)
  items: ReturnItemInputDto[];

  @ApiPropertyOptional({ maxLength: 1000, example: 'Please refund to my card' })
  @Optional()
  @IsString()
  @CodePointLength(0, 1000)
  note?: string;
}

export class ReceiveItemInputDto {
  @ApiProperty({ type: 'integer', example: 90, description: 'An order item of the return' })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  order_item_id: number;

  @ApiProperty({ type: 'integer', example: 1, minimum: 1, description: 'At most the units requested for it' })
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;

  @ApiPropertyOptional({ description: 'Put the received units back in stock (default false)' })
  @Optional()
  @IsBoolean()
  restock?: boolean;
}

export class ReceiveReturnDto {
  @ApiProperty({
    type: [ReceiveItemInputDto],
    minItems: 1,
    description: 'The units that arrived; an item of the return not listed arrived with none',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ITEMS)
  @IsObject({
    each: true,
    message: 'each value in items must be an object {order_item_id, quantity, restock}',
  })
  @ValidateNested({ each: true })
  @Type(() => ReceiveItemInputDto)
  items: ReceiveItemInputDto[];

  @ApiPropertyOptional({ description: "Refund the order's shipping too, once per order (default false)" })
  @Optional()
  @IsBoolean()
  refund_shipping?: boolean;
}

export class RejectReturnDto {
  @ApiProperty({ minLength: 1, maxLength: 500, example: 'Used beyond inspection' })
  @IsString()
  @CodePointLength(1, 500)
  reason: string;
}

export class ReturnListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: RETURN_STATUSES })
  @Optional()
  @IsIn(RETURN_STATUSES)
  status?: ReturnStatus;

  @ApiPropertyOptional({ type: 'integer', example: 41, minimum: 1 })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  order_id?: number;
}

export class ReturnItemDto {
  @ApiProperty({ type: 'integer', example: 90 }) order_item_id: number;
  @ApiProperty({ type: 'integer', example: 1 }) quantity: number;
  @ApiProperty({ type: 'string', nullable: true, example: 'Arrived broken' }) reason: string | null;
  @ApiProperty({ example: 3.6, description: "The requested units' shares of the line's total" })
  refund_amount: number;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'Set when received' })
  received_quantity: number | null;
  @ApiProperty({ example: false }) restock: boolean;
}

export class ReturnResponseDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ type: 'integer', example: 41 }) order_id: number;
  @ApiProperty({ enum: RETURN_STATUSES, example: 'requested' }) status: ReturnStatus;
  @ApiProperty({ type: [ReturnItemDto] }) items: ReturnItemDto[];
  @ApiProperty({ type: 'string', nullable: true, example: null }) note: string | null;
  @ApiProperty({ example: 'usd' }) currency_code: string;
  @ApiProperty({
    example: 3.6,
    description:
      "What it refunds: the requested units' shares of their lines' totals; once received, the received " +
      "units' shares (plus the shipping when refund_shipping)",
  })
  refund_amount: number;
  @ApiProperty({ example: false }) refund_shipping: boolean;
  @ApiProperty({
    enum: ['pending', 'succeeded', 'failed'],
    nullable: true,
    example: 'succeeded',
    description: 'null until received; failed: the provider refused (see refund_error), staff may retry',
  })
  refund_status: RefundStatus | null;
  @ApiProperty({ type: 'string', nullable: true, example: null }) refund_error: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: null }) reject_reason: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-24T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  received_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  rejected_at: string | null;
}

export function toReturnResponse(ret: Return): ReturnResponseDto {
  const money = (amount: number) => fromMinor(amount, ret.currencyCode);
  return {
    id: ret.id,
    order_id: ret.orderId,
    status: ret.status,
    items: ret.items.map((item) => ({
      order_item_id: item.orderItemId,
      quantity: item.quantity,
      reason: item.reason,
      refund_amount: money(item.refundMinor),
      received_quantity: item.receivedQuantity,
      restock: Boolean(item.restock),
    })),
    note: ret.note,
    currency_code: ret.currencyCode,
    refund_amount: money(ret.refundAmountMinor),
    refund_shipping: Boolean(ret.refundShipping),
    refund_status: ret.refundStatus,
    refund_error: ret.refundError,
    reject_reason: ret.rejectReason,
    created_at: ret.createdAt.toISOString(),
    received_at: ret.receivedAt?.toISOString() ?? null,
    rejected_at: ret.rejectedAt?.toISOString() ?? null,
  };
}
