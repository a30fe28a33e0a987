import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString } from 'class-validator';
import { CodePointLength } from '../common/validation.js';

export const NOTE_MAX_LENGTH = 2000;

export class CreateOrderNoteDto {
  @ApiProperty({
    example: 'Customer asked to ship together with order ORD-20261128-7KD2M9QX',
    minLength: 1,
    maxLength: NOTE_MAX_LENGTH,
    description: 'Trimmed; 1-2000 characters (code points) after trimming',
  })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @CodePointLength(1, NOTE_MAX_LENGTH)
  text: string;
}

export class NoteAuthorDto {
  @ApiProperty({ type: 'integer', example: 1 }) id: number;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'admin',
    description: 'null when the account no longer exists',
  })
  username: string | null;
}

export class OrderNoteResponseDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ type: 'integer', example: 41 }) order_id: number;
  @ApiProperty({ example: 'Customer asked to ship together with order ORD-20261128-7KD2M9QX' }) text: string;
  @ApiProperty({ type: NoteAuthorDto }) author: NoteAuthorDto;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class TimelineActorDto {
  @ApiProperty({ enum: ['customer', 'guest', 'staff', 'system', 'payment_provider'], example: 'staff' })
  type: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 1,
    description: 'The account (customer or staff); null for a guest, the system or a payment provider',
  })
  id: number | null;
}

export class OrderTimelineEntryDto {
  @ApiProperty({ format: 'date-time', example: '2026-11-28T10:15:02.417Z' }) at: string;
  @ApiProperty({
    example: 'payment',
    description:
      'placed, payment, refund, status_changed, fulfilment_created, fulfilment_delivered, fulfilment_cancelled, ' +
      'return_requested, return_received, return_rejected, email_sent, note',
  })
  type: string;
  @ApiProperty({ type: TimelineActorDto }) actor: TimelineActorDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      payment_id: 7,
      provider: 'manual',
      status: 'paid',
      amount: 60.17,
      refunded: 0,
      currency: 'usd',
    },
    description: 'What the entry is about, by type (docs/api.md#order-timeline); amounts in major units',
  })
  data: Record<string, unknown>;
}
