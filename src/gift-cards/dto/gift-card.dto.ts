import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import { DateTime, Optional } from '../../common/validation.js';
import { IsAmountInCurrency, IsCurrencyCode } from '../../pricing/currency-prices.js';

export class CreateGiftCardDto {
  @ApiProperty({
    example: 50,
    description: 'In the major units of currency_code (rule `isAmountIn`); more than 0 (rule `min`)',
  })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsAmountInCurrency()
  initial_balance: number;

  @ApiProperty({
    example: 'eur',
    description: 'Lower-case ISO 4217; the card pays carts in this currency only',
  })
  @IsCurrencyCode()
  currency_code: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2027-12-31T23:59:59.000Z',
    description: 'After it the card pays nothing; null (the default) never expires',
  })
  @IsOptional()
  @DateTime()
  expires_at?: string | null;

  @ApiPropertyOptional({ example: true, description: 'Default on create: true' })
  @Optional()
  @IsBoolean()
  is_active?: boolean;
}

/** Partial: only the fields sent change; the currency and the initial balance stay as created. */
export class UpdateGiftCardDto {
  @ApiPropertyOptional({
    example: 20,
    description:
      "Sets the balance (a correction or a top-up), in the card's currency (rule `isAmountIn`); what orders " +
      'took and give back is counted from the value set',
  })
  @Optional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  balance?: number;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true, example: null })
  @IsOptional()
  @DateTime()
  expires_at?: string | null;

  @ApiPropertyOptional({ example: false, description: 'false: the card pays nothing (deactivated)' })
  @Optional()
  @IsBoolean()
  is_active?: boolean;
}

export class GiftCardResponseDto {
  @ApiProperty({ type: 'integer', example: 4 }) id: number;
  @ApiProperty({ example: 'Q7KM', description: 'The last four characters of the code' }) code_last4: string;
  @ApiProperty({ example: 50 }) initial_balance: number;
  @ApiProperty({ example: 35.5 }) balance: number;
  @ApiProperty({ example: 'eur' }) currency_code: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null }) expires_at:
    string | null;
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export class CreatedGiftCardResponseDto extends GiftCardResponseDto {
  @ApiProperty({
    example: 'H4PX9TZK2MWD7Q7KM',
    description: 'The full code: shown in this answer only (only its hash is stored)',
  })
  code: string;
}

export class ApplyGiftCardDto {
  @ApiProperty({ example: 'H4PX-9TZK-2MWD-Q7KM', description: 'Any case; spaces and dashes are ignored' })
  @IsString()
  @MaxLength(64)
  code: string;
}

/** A gift card applied to a cart. */
export class CartGiftCardDto {
  @ApiProperty({ type: 'integer', example: 4 }) id: number;
  @ApiProperty({ example: 'Q7KM' }) code_last4: string;
  @ApiProperty({ example: 35.5, description: "The card's balance now" }) balance: number;
  @ApiProperty({
    example: 35.5,
    description: 'What it pays of this cart (cards pay in the order applied; 0 when it cannot pay now)',
  })
  amount: number;
}

/** A gift card an order was paid with. */
export class OrderGiftCardDto {
  @ApiProperty({ type: 'integer', example: 4 }) id: number;
  @ApiProperty({ example: 'Q7KM' }) code_last4: string;
  @ApiProperty({ example: 35.5, description: 'What the order took from the card at checkout' })
  amount: number;
}
