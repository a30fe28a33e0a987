import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { type PageQueryDto, pageWindow } from '../common/pagination.js';
import { type FieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { CustomerGroupDirectory } from '../customer-groups/customer-group-directory.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { fromMinor, toMinor } from '../pricing/calculator.js';
import { ProductCatalog } from '../products/product-catalog.js';
import type {
  CreatePriceListDto,
  PriceListPriceDto,
  PriceListResponseDto,
  UpdatePriceListDto,
} from './dto/price-list.dto.js';
import { PriceList, PriceListCustomerGroup, PriceListPrice } from './price-list.entity.js';

/** The largest unit price a line holds, in minor units (the carts' and orders' integer columns). */
const AMOUNT_MAX_MINOR = 2_147_483_647;

/** Price lists as the admin API writes and reads them; what they give a shopper is PriceListLookup's. */
@Injectable()
export class PriceListsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly products: ProductCatalog,
    private readonly groups: CustomerGroupDirectory,
  ) {}

  /** Id order, paged. */
  async list(query: PageQueryDto): Promise<Paginated<PriceListResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const manager = this.dataSource.manager;
    const [lists, total] = await manager.findAndCount(PriceList, {
      order: { id: 'ASC' },
      skip,
      take: pageSize,
    });
    return new Paginated(await responsesOf(manager, lists), total, page, pageSize);
  }

  async get(id: number): Promise<PriceListResponseDto> {
    return this.read(this.dataSource.manager, id);
  }

  async create(dto: CreatePriceListDto): Promise<PriceListResponseDto> {
    return this.transactions.run('create price list', async (tx) => {
      const startsAt = dateOf(dto.starts_at);
      const endsAt = dateOf(dto.ends_at);
      await this.assertWritable(tx, dto, startsAt ?? null, endsAt ?? null);
      const now = new Date();
      const result = await tx.insert(PriceList, {
        name: dto.name,
        description: dto.description ?? null,
        type: dto.type,
        status: dto.status ?? 'draft',
        startsAt: startsAt ?? null,
        endsAt: endsAt ?? null,
        createdAt: now,
        updatedAt: now,
      });
      const id = Number(result.identifiers[0].id);
      await insertGroups(tx, id, dto.customer_group_ids ?? []);
      await insertPrices(tx, id, dto.prices ?? []);
      return this.read(tx, id);
    });
  }

  /** Partial; `customer_group_ids` and `prices` sent replace theirs; null clears description and the dates. */
  async update(id: number, dto: UpdatePriceListDto): Promise<PriceListResponseDto> {
    return this.transactions.run('update price list', async (tx) => {
      const list = await forUpdate(
        tx.createQueryBuilder(PriceList, 'l').where('l.id = :id', { id }),
      ).getOne();
      if (list === null) throw notFound(id);
      const startsAt = dateOf(dto.starts_at);
      const endsAt = dateOf(dto.ends_at);
      await this.assertWritable(
        tx,
        dto,
        startsAt === undefined ? list.startsAt : startsAt,
        endsAt === undefined ? list.endsAt : endsAt,
      );
      const changes = Object.fromEntries(
        Object.entries({
          name: dto.name,
          description: dto.description,
          type: dto.type,
          status: dto.status,
          startsAt,
          endsAt,
        }).filter(([, value]) => value !== undefined),
      );
      await tx.update(PriceList, { id }, { ...changes, updatedAt: new Date() });
      if (dto.customer_group_ids !== undefined) {
        await tx.delete(PriceListCustomerGroup, { priceListId: id });
        await insertGroups(tx, id, dto.customer_group_ids);
      }
      if (dto.prices !== undefined) {
        await tx.delete(PriceListPrice, { priceListId: id });
        await insertPrices(tx, id, dto.prices);
      }
      return this.read(tx, id);
    });
  }

  async remove(id: number): Promise<void> {
    await this.transactions.run('delete price list', async (tx) => {
      if (!(await tx.existsBy(PriceList, { id }))) throw notFound(id);
      await tx.delete(PriceListPrice, { priceListId: id });
      await tx.delete(PriceListCustomerGroup, { priceListId: id });
      await tx.delete(PriceList, { id });
    });
  }

  /**
   * 400 listing every problem of a write: a price naming neither or both of product_id and variant_id, one
   * listed twice, an amount too large, a product, variant or group that does not exist, and dates out of order.
   */
  private async assertWritable(
    manager: EntityManager,
    dto: UpdatePriceListDto,
    startsAt: Date | null,
    endsAt: Date | null,
  ): Promise<void> {
    const problems: FieldError[] = [];
    const prices = dto.prices ?? [];
    const seen = new Set<string>();
    prices.forEach((price, index) => {
      const at = `prices.${index}`;
      if (price.product_id === undefined && price.variant_id === undefined) {
        problems.push({
          field: `${at}.product_id`,
          rule: 'required',
          message: `${at} needs product_id or variant_id`,
        });
        return;
      }
      if (price.product_id !== undefined && price.variant_id !== undefined) {
        problems.push({
          field: `${at}.variant_id`,
          rule: 'exclusive',
          message: `${at} gives product_id or variant_id, not both`,
        });
        return;
      }
      const key = `${price.product_id ?? ''}/${price.variant_id ?? ''}/${price.currency_code}`;
      if (seen.has(key)) {
        problems.push({
          field: `${at}.currency_code`,
          rule: 'unique',
          message: `${at} prices the same product or variant in ${price.currency_code} as an earlier entry`,
        });
      }
      seen.add(key);
      if (toMinor(price.amount, price.currency_code) > AMOUNT_MAX_MINOR) {
        problems.push({
          field: `${at}.amount`,
          rule: 'max',
          message: `${at}.amount must be at most ${fromMinor(AMOUNT_MAX_MINOR, price.currency_code)}`,
        });
      }
    });
    const unknown = async (kind: 'product' | 'variant', field: 'product_id' | 'variant_id') => {
      const ids = prices.flatMap((price) => (price[field] === undefined ? [] : [price[field]]));
      const missing = new Set(await this.products.missing(manager, kind, ids));
      prices.forEach((price: PriceListPriceDto, index) => {
        if (price[field] !== undefined && missing.has(price[field])) {
          problems.push({
            field: `prices.${index}.${field}`,
            rule: 'exists',
            message: `prices.${index}.${field}: ${kind} ${price[field]} does not exist`,
          });
        }
      });
    };
    await unknown('product', 'product_id');
    await unknown('variant', 'variant_id');
    const missingGroups = await this.groups.missing(manager, dto.customer_group_ids ?? []);
    if (missingGroups.length > 0) {
      problems.push({
        field: 'customer_group_ids',
        rule: 'exists',
        message: `customer_group_ids names no customer group: ${missingGroups.join(', ')}`,
      });
    }
    if (startsAt !== null && endsAt !== null && endsAt.getTime() <= startsAt.getTime()) {
      problems.push({ field: 'ends_at', rule: 'afterStartsAt', message: 'ends_at must be after starts_at' });
    }
    if (problems.length > 0) throw new ValidationFailedException(problems);
  }

  private async read(manager: EntityManager, id: number): Promise<PriceListResponseDto> {
    const list = await manager.findOneBy(PriceList, { id });
    if (list === null) throw notFound(id);
    return (await responsesOf(manager, [list]))[0];
  }
}

const notFound = (id: number) => new NotFoundException(`Price list ${id} not found`);

/** A date-time field of a write: undefined when absent, null when cleared. */
function dateOf(value: string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}

async function insertGroups(tx: Tx, priceListId: number, groupIds: number[]): Promise<void> {
  if (groupIds.length === 0) return;
  await tx.insert(
    PriceListCustomerGroup,
    groupIds.map((customerGroupId) => ({ priceListId, customerGroupId })),
  );
}

async function insertPrices(tx: Tx, priceListId: number, prices: PriceListPriceDto[]): Promise<void> {
  if (prices.length === 0) return;
  await tx.insert(
    PriceListPrice,
    prices.map((price) => ({
      priceListId,
      productId: price.product_id ?? null,
      variantId: price.variant_id ?? null,
      currencyCode: price.currency_code,
      amountMinor: toMinor(price.amount, price.currency_code),
    })),
  );
}

/** The lists as the API shows them, with their groups and prices: two statements whatever their number. */
async function responsesOf(manager: EntityManager, lists: PriceList[]): Promise<PriceListResponseDto[]> {
  if (lists.length === 0) return [];
  const ids = lists.map((list) => list.id);
  const groups = await manager.find(PriceListCustomerGroup, {
    where: { priceListId: In(ids) },
    order: { customerGroupId: 'ASC' },
  });
  const prices = await manager.find(PriceListPrice, { where: { priceListId: In(ids) } });
  prices.sort(
    (a, b) =>
      Number(a.productId === null) - Number(b.productId === null) ||
      (a.productId ?? a.variantId ?? 0) - (b.productId ?? b.variantId ?? 0) ||
      (a.currencyCode < b.currencyCode ? -1 : a.currencyCode > b.currencyCode ? 1 : 0),
  );
  return lists.map((list) => ({
    id: list.id,
    name: list.name,
    description: list.description,
    type: list.type,
    status: list.status,
    starts_at: list.startsAt === null ? null : list.startsAt.toISOString(),
    ends_at: list.endsAt === null ? null : list.endsAt.toISOString(),
    customer_group_ids: groups
      .filter((group) => group.priceListId === list.id)
      .map((group) => group.customerGroupId),
    prices: prices
      .filter((price) => price.priceListId === list.id)
      .map((price) => ({
        product_id: price.productId,
        variant_id: price.variantId,
        currency_code: price.currencyCode,
        amount: fromMinor(price.amountMinor, price.currencyCode),
      })),
    created_at: list.createdAt.toISOString(),
    updated_at: list.updatedAt.toISOString(),
  }));
}
