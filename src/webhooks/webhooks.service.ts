import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { PageQueryDto, pageWindow } from '../common/pagination.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import {
  CreatedWebhookResponseDto,
  CreateWebhookDto,
  toDeliveryResponse,
  toWebhookResponse,
  UpdateWebhookDto,
  WebhookDeliveryResponseDto,
  WebhookResponseDto,
} from './dto/webhook.dto.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { checkedAddresses, newSecret, RefusedUrlError, systemResolver } from './webhook-sender.js';
import { Webhook } from './webhook.entity.js';

@Injectable()
export class WebhooksService {
  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    @InjectRepository(WebhookDelivery) private readonly deliveryRows: Repository<WebhookDelivery>,
    private readonly deliveries: WebhookDeliveries,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(dto: CreateWebhookDto): Promise<CreatedWebhookResponseDto> {
    await this.assertReachable(dto.url);
    const secret = newSecret();
    const webhook = this.webhooks.create({
      url: dto.url,
      events: [...new Set(dto.events)],
      description: dto.description ?? '',
      active: dto.active ?? true,
      secret,
    });
    await this.transactions.run('create webhook', (tx) => tx.insert(Webhook, webhook));
    return { ...toWebhookResponse(await this.findOrFail(webhook.id)), secret };
  }

  async list(query: PageQueryDto): Promise<Paginated<WebhookResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [rows, total] = await this.webhooks.findAndCount({ order: { id: 'ASC' }, skip, take: pageSize });
    return new Paginated(rows.map(toWebhookResponse), total, page, pageSize);
  }

  async get(id: number): Promise<WebhookResponseDto> {
    return toWebhookResponse(await this.findOrFail(id));
  }

  async update(id: number, dto: UpdateWebhookDto): Promise<WebhookResponseDto> {
    await this.findOrFail(id);
    if (dto.url !== undefined) await this.assertReachable(dto.url);
    const changes: Partial<Webhook> = { updatedAt: new Date() };
    if (dto.url !== undefined) changes.url = dto.url;
    if (dto.events !== undefined) changes.events = [...new Set(dto.events)];
    if (dto.description !== undefined) changes.description = dto.description;
    if (dto.active !== undefined) changes.active = dto.active;
    const result = await this.transactions.run('update webhook', (tx) => tx.update(Webhook, { id }, changes));
    if (result.affected === 0) throw new NotFoundException(`Webhook ${id} not found`);
    return toWebhookResponse(await this.findOrFail(id));
  }

  async remove(id: number): Promise<void> {
    const result = await this.transactions.run('delete webhook', (tx) => tx.delete(Webhook, { id }));
    if (result.affected === 0) throw new NotFoundException(`Webhook ${id} not found`);
  }

  async listDeliveries(id: number, query: PageQueryDto): Promise<Paginated<WebhookDeliveryResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    await this.findOrFail(id);
    const [rows, total] = await this.deliveryRows.findAndCount({
      where: { webhookId: id },
      order: { id: 'DESC' },
      skip,
      take: pageSize,
    });
    return new Paginated(rows.map(toDeliveryResponse), total, page, pageSize);
  }

  async retry(id: number, deliveryId: number): Promise<WebhookDeliveryResponseDto> {
    const delivery = await this.findDeliveryOrFail(id, deliveryId);
    await this.deliveries.retryNow(delivery.id, delivery.attempts);
    return toDeliveryResponse(await this.findDeliveryOrFail(id, deliveryId));
  }

  /** 400 naming `url` unless its host resolves, and only to addresses webhooks may reach. */
  private async assertReachable(url: string): Promise<void> {
    try {
      await checkedAddresses(new URL(url), systemResolver, this.config.webhooks.allowPrivateNetworks);
    } catch (error) {
      if (error instanceof RefusedUrlError) throw fieldError('url', error.rule, error.message);
      throw error;
    }
  }

  private async findOrFail(id: number): Promise<Webhook> {
    const webhook = await this.webhooks.findOneBy({ id });
    if (webhook === null) throw new NotFoundException(`Webhook ${id} not found`);
    return webhook;
  }

  private async findDeliveryOrFail(webhookId: number, id: number): Promise<WebhookDelivery> {
    const delivery = await this.deliveryRows.findOneBy({ id, webhookId });
    if (delivery === null) throw new NotFoundException(`Delivery ${id} of webhook ${webhookId} not found`);
    return delivery;
  }
}
