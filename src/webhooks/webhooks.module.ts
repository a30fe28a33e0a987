import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { Webhook } from './webhook.entity.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

/** Admin-managed webhooks: every domain event, signed, to the endpoints subscribed to it (docs/api.md#webhooks). */
@Module({
  imports: [TypeOrmModule.forFeature([Webhook, WebhookDelivery])],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhookDeliveries],
})
export class WebhooksModule {}
