import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam, ParseIdPipe } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import {
  CreatedWebhookResponseDto,
  CreateWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveryResponseDto,
  WebhookResponseDto,
} from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

const ID_400 = { 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } };
const URL_400 = {
  400: {
    field: 'url',
    rule: 'publicAddress',
    message: 'url must reach a public address: localhost is 127.0.0.1, a loopback address',
  },
};

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('admin/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @ApiOperation({
    summary: 'Register a webhook (admin)',
    description:
      'The response holds the signing secret, which is never shown again. Deliveries are signed by the ' +
      'Standard Webhooks scheme (docs/api.md#webhooks).',
  })
  @ApiEnvelope(CreatedWebhookResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, URL_400)
  create(@Body() dto: CreateWebhookDto): Promise<CreatedWebhookResponseDto> {
    return this.webhooks.create(dto);
  }

  @Get()
  @ApiOperation({
    summary: 'List webhooks (admin)',
    description: 'Order: id ascending. Secrets are not shown.',
  })
  @ApiEnvelope(WebhookResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page_size', rule: 'max', message: 'page_size must not be greater than 100' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<WebhookResponseDto>> {
    return this.webhooks.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a webhook (admin)' })
  @ApiEnvelope(WebhookResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { ...ID_400, 404: 'Webhook 7 not found' })
  get(@IdParam() id: number): Promise<WebhookResponseDto> {
    return this.webhooks.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a webhook (admin)',
    description: 'Partial: only the fields sent change. The secret stays.',
  })
  @ApiEnvelope(WebhookResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { ...URL_400, 404: 'Webhook 7 not found' })
  update(@IdParam() id: number, @Body() dto: UpdateWebhookDto): Promise<WebhookResponseDto> {
    return this.webhooks.update(id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a webhook and its deliveries (admin)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { ...ID_400, 404: 'Webhook 7 not found' })
  remove(@IdParam() id: number): Promise<void> {
    return this.webhooks.remove(id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "List a webhook's deliveries (admin)", description: 'Newest first.' })
  @ApiEnvelope(WebhookDeliveryResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 404, 429, { ...ID_400, 404: 'Webhook 7 not found' })
  listDeliveries(
    @IdParam() id: number,
    @Query() query: PageQueryDto,
  ): Promise<Paginated<WebhookDeliveryResponseDto>> {
    return this.webhooks.listDeliveries(id, query);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a delivery again now (admin)',
    description:
      'Queues one more attempt at once, whatever the status; the delivery is `pending` until it has run. ' +
      'If it fails and the retry schedule is used up, the delivery is `failed` again.',
  })
  @ApiParam({ name: 'deliveryId', schema: { type: 'integer', minimum: 1, example: 12 } })
  @ApiEnvelope(WebhookDeliveryResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { ...ID_400, 404: 'Delivery 12 of webhook 7 not found' })
  retry(
    @IdParam() id: number,
    @Param('deliveryId', ParseIdPipe) deliveryId: number,
  ): Promise<WebhookDeliveryResponseDto> {
    return this.webhooks.retry(id, deliveryId);
  }
}
