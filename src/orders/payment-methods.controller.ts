import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { CatalogRead } from '../common/public.decorator.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';

export class PaymentMethodsResponseDto {
  @ApiProperty({
    type: [String],
    example: ['credit_card', 'paypal'],
    description: 'PAYMENT_METHODS, in order',
  })
  payment_methods: string[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['manual', 'stripe'] },
    example: { credit_card: 'stripe', bank_transfer: 'manual' },
    description:
      'The payment provider of each method (PAYMENT_PROVIDERS; a method not named there is manual)',
  })
  providers: Record<string, 'manual' | 'stripe'>;

  @ApiProperty({
    example: 'usd',
    description:
      "CURRENCY: the default region's currency (lower-case ISO 4217), that of the seed `price` fields; carts, orders and payments carry their own currency_code",
  })
  currency: string;
}

@ApiTags('orders')
@ApiBearerAuth()
@Controller('payment-methods')
export class PaymentMethodsController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @CatalogRead()
  @ApiOperation({
    summary: "The accepted payment_method values for new orders, and the default region's currency",
    description: 'Any authenticated caller; also callers without a token when CATALOG_PUBLIC=true.',
  })
  @ApiEnvelope(PaymentMethodsResponseDto)
  @ApiErrors(401, 429)
  list(): PaymentMethodsResponseDto {
    const named = this.config.payments.providers;
    return {
      payment_methods: this.config.paymentMethods,
      providers: Object.fromEntries(
        this.config.paymentMethods.map((method) => [method, named[method] ?? 'manual']),
      ),
      currency: this.config.payments.currency,
    };
  }
}
