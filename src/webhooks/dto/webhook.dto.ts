import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  isURL,
  ValidateBy,
  type ValidationArguments,
} from 'class-validator';
import { CodePointLength, Optional } from '../../common/validation.js';
import { unparsableUrlReason } from '../address-rules.js';
import { EVENT_TYPES } from '../event-types.js';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery } from '../webhook-delivery.entity.js';
import type { Webhook } from '../webhook.entity.js';

const EVENT_CHOICES = ['*', ...EVENT_TYPES];

const URL_SHAPE = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
  disallow_auth: true,
};

/** What is wrong with a webhook URL (rule `isUrl`), or undefined. */
function urlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || !isURL(value, URL_SHAPE)) {
    return 'url must be an http:// or https:// URL without user name or password';
  }
  return unparsableUrlReason(value);
}

/** isUrl: http or https without credentials, and readable by the WHATWG parser the deliveries use. */
const WebhookUrl = () =>
  ValidateBy({
    name: 'isUrl',
    validator: {
      validate: (value: unknown) => urlProblem(value) === undefined,
      defaultMessage: (args?: ValidationArguments) => urlProblem(args?.value) ?? '',
    },
  });

export class CreateWebhookDto {
  @ApiProperty({
    maxLength: 2048,
    example: 'https://erp.example.com/hooks/commerce',
    description:
      'http or https, without user name or password, and a valid URL by the WHATWG URL standard (no IPv6 zone ' +
      'id, `xn--` labels that decode): otherwise 400 rule `isUrl`. Its host must resolve to public addresses ' +
      'only (no loopback, private, link-local, CGNAT, multicast or other special ranges) unless ' +
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS=true; checked here and again before each attempt',
  })
  @IsString()
  @CodePointLength(1, 2048)
  @WebhookUrl()
  url: string;

  @ApiProperty({
    type: [String],
    enum: EVENT_CHOICES,
    example: ['order.created', 'order.paid'],
    description: 'Event types to receive; `["*"]` for every event, present and future',
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(EVENT_CHOICES.length)
  @IsIn(EVENT_CHOICES, {
    each: true,
    message: `each value in events must be * or one of ${EVENT_TYPES.join(', ')}`,
  })
  events: string[];

  @ApiPropertyOptional({ maxLength: 500, example: 'ERP order import', description: 'Default: empty' })
  @Optional()
  @IsString()
  @CodePointLength(0, 500)
  description?: string;

  @ApiPropertyOptional({
    description:
      'Default true. An inactive webhook gets no new deliveries, and its pending ones fail at their next attempt',
  })
  @Optional()
  @IsBoolean()
  active?: boolean;
}

export class UpdateWebhookDto extends PartialType(CreateWebhookDto, { skipNullProperties: false }) {}

export class WebhookResponseDto {
  @ApiProperty({ type: 'integer', example: 7 }) id: number;
  @ApiProperty({ example: 'https://erp.example.com/hooks/commerce' }) url: string;
  @ApiProperty({ type: [String], example: ['order.created', 'order.paid'] }) events: string[];
  @ApiProperty({ example: 'ERP order import' }) description: string;
  @ApiProperty({ example: true }) active: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export class CreatedWebhookResponseDto extends WebhookResponseDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2T4pMXQlGAo=',
    description:
      'The signing secret (`whsec_` + base64 of 32 random bytes). Shown only in this response: keep it, it is ' +
      'never returned again',
  })
  secret: string;
}

export class WebhookDeliveryResponseDto {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
  @ApiProperty({ example: '0193f1c2-7a4e-7c3b-9a51-2f0c8d6e4b1a', description: 'The `webhook-id` header' })
  event_id: string;
  @ApiProperty({ example: 'order.created' }) event_type: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'pending' }) status: DeliveryStatus;
  @ApiProperty({ type: 'integer', example: 2, description: 'Attempts started so far' }) attempts: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 500,
    description: 'HTTP status of the last answer',
  })
  last_status_code: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'answered HTTP 500' }) last_error: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-11-22T08:01:00.000Z',
    description: 'When the next attempt is due; null once succeeded or failed',
  })
  next_attempt_at: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
}

export function toWebhookResponse(webhook: Webhook): WebhookResponseDto {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    active: webhook.active,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

export function toDeliveryResponse(delivery: WebhookDelivery): WebhookDeliveryResponseDto {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
  };
}
