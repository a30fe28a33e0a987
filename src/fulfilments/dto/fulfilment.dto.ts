import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsObject,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Optional } from '../../common/validation.js';
import { MAX_ITEMS, MAX_QUANTITY, type OrderFulfilmentDto } from '../../orders/dto/order.dto.js';
import type { Fulfilment } from '../fulfilment.entity.js';

export class FulfilmentItemInputDto {
  @ApiProperty({ type: 'integer', example: 90, description: "An id of the order's `items`" })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  order_item_id: number;

  @ApiProperty({ type: 'integer', example: 1, minimum: 1, description: 'At most the unfulfilled units' })
  @IsInt()
  @Min(1)
  @Max(MAX_QUANTITY)
  quantity: number;
}

export class CreateFulfilmentDto {
  @ApiProperty({ type: [FulfilmentItemInputDto], minItems: 1, description: 'Each order item at most once' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ITEMS)
  @IsObject({ each: true, message: 'each value in items must be an object {order_item_id, quantity}' })
  @ValidateNested({ each: true })
  @Type(() => FulfilmentItemInputDto)
  items: FulfilmentItemInputDto[];

  @ApiPropertyOptional({ maxLength: 100, example: 'DHL' })
  @Optional()
  @IsString()
  @MaxLength(100)
  carrier?: string;

  @ApiPropertyOptional({ maxLength: 100, example: '00340434161094042557' })
  @Optional()
  @IsString()
  @MaxLength(100)
  tracking_number?: string;

  @ApiPropertyOptional({
    maxLength: 2000,
    example: 'https://www.dhl.com/track?id=00340434161094042557',
    description: 'An http(s) URL',
  })
  @Optional()
  @IsString()
  @MaxLength(2000)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  tracking_url?: string;

  @ApiPropertyOptional({ description: 'Send the customer the shipment e-mail (default true)' })
  @Optional()
  @IsBoolean()
  notify_customer?: boolean;
}

export function toFulfilmentResponse(fulfilment: Fulfilment): OrderFulfilmentDto {
  return {
    id: fulfilment.id,
    order_id: fulfilment.orderId,
    items: fulfilment.items.map((item) => ({ order_item_id: item.orderItemId, quantity: item.quantity })),
    carrier: fulfilment.carrier,
    tracking_number: fulfilment.trackingNumber,
    tracking_url: fulfilment.trackingUrl,
    notify_customer: Boolean(fulfilment.notifyCustomer),
    shipped_at: fulfilment.shippedAt.toISOString(),
    delivered_at: fulfilment.deliveredAt?.toISOString() ?? null,
    cancelled_at: fulfilment.cancelledAt?.toISOString() ?? null,
  };
}
