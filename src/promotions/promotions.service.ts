import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { PageQueryDto, pageWindow } from '../common/pagination.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { CustomerGroupDirectory } from '../customer-groups/customer-group-directory.js';
import { isUniqueViolation } from '../database/errors.js';
import { placeholders } from '../database/raw-query.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { isAmountIn } from '../pricing/calculator.js';
import {
  CreatePromotionDto,
  type PromotionResponseDto,
  toPromotionResponse,
  UpdatePromotionDto,
} from './dto/promotion.dto.js';
import { OPEN_TERMS } from './promotion-rules.js';
import { Promotion } from './promotion.entity.js';

/** A promotion's fields as written, before the checks that look at several of them. */
type PromotionFields = Omit<Promotion, 'id' | 'usedCount' | 'createdAt' | 'updatedAt'>;

/** The admin's promotions: discount codes and automatic promotions. */
@Injectable()
export class PromotionsService {
  constructor(
    @InjectRepository(Promotion) private readonly promotions: Repository<Promotion>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly groups: CustomerGroupDirectory,
  ) {}

  /** Newest first. */
  async list(query: PageQueryDto): Promise<Paginated<PromotionResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [rows, total] = await this.promotions.findAndCount({ order: { id: 'DESC' }, skip, take: pageSize });
    return new Paginated(rows.map(toPromotionResponse), total, page, pageSize);
  }

  async get(id: number): Promise<PromotionResponseDto> {
    const row = await this.promotions.findOneBy({ id });
    if (row === null) throw notFound(id);
    return toPromotionResponse(row);
  }

  async create(dto: CreatePromotionDto): Promise<PromotionResponseDto> {
    const fields = withChanges(
      {
        code: null,
        codeKey: null,
        description: '',
        type: dto.type,
        value: null,
        currencyCode: null,
        target: 'order',
        ...OPEN_TERMS,
      },
      dto,
    );
    return this.writing(fields, () =>
      this.transactions.run('create promotion', async (tx) => {
        await this.assertValid(tx, fields, null);
        const result = await tx.insert(Promotion, { ...fields, usedCount: 0 });
        return toPromotionResponse(
          await tx.findOneByOrFail(Promotion, { id: Number(result.identifiers[0].id) }),
        );
      }),
    );
  }

  async update(id: number, dto: UpdatePromotionDto): Promise<PromotionResponseDto> {
    let fields: PromotionFields | null = null;
    return this.writing(
      () => fields,
      () =>
        this.transactions.run('update promotion', async (tx) => {
          const current = await forUpdate(
            tx.createQueryBuilder(Promotion, 'p').where('p.id = :id', { id }),
          ).getOne();
          if (current === null) throw notFound(id);
          const { id: _id, usedCount: _used, createdAt: _created, updatedAt: _updated, ...kept } = current;
          fields = withChanges(kept, dto);
          await this.assertValid(tx, fields, id);
          // used_count is only ever changed by the conditional updates of placing and cancelling.
          await tx.update(Promotion, { id }, { ...fields, updatedAt: new Date() });
          return toPromotionResponse(await tx.findOneByOrFail(Promotion, { id }));
        }),
    );
  }

  /** Carts lose the code; orders keep their adjustments (code, description, promotion id). */
  async remove(id: number): Promise<void> {
    const result = await this.transactions.run('delete promotion', (tx) => tx.delete(Promotion, { id }));
    if (result.affected === 0) throw notFound(id);
  }

  /** A write that a concurrent one with the same code may beat to the unique index: then the same 400. */
  private async writing<T>(
    fields: PromotionFields | (() => PromotionFields | null),
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const written = typeof fields === 'function' ? fields() : fields;
      if (!isUniqueViolation(error) || written === null) throw error;
      throw codeTaken(written.code!);
    }
  }

  /** The checks across fields, on the promotion as it would be: 400 naming the field and the rule. */
  private async assertValid(tx: EntityManager, fields: PromotionFields, id: number | null): Promise<void> {
    const { type, value, currencyCode } = fields;
    if ((type === 'percentage' || type === 'fixed') && value === null) {
      throw fieldError('value', 'required', `value is required for a ${type} promotion`);
    }
    if (type === 'percentage' && value! > 100) {
      throw fieldError('value', 'max', 'value of a percentage promotion must not be greater than 100');
    }
    if ((type === 'free_shipping' || type === 'buy_x_get_y') && value !== null) {
      throw fieldError('value', 'empty', `a ${type} promotion has no value (send null)`);
    }
    if (type === 'fixed' && currencyCode === null) {
      throw fieldError('currency_code', 'required', 'currency_code is required for a fixed promotion');
    }
    if (type !== 'fixed' && currencyCode !== null) {
      throw fieldError(
        'currency_code',
        'fixedOnly',
        'only a fixed promotion has a currency_code (send null)',
      );
    }
    if (type === 'fixed' && !isCurrency(currencyCode!)) {
      throw fieldError('currency_code', 'isCurrency', `${currencyCode} is not an ISO 4217 currency`);
    }
    if (type === 'fixed' && !isAmountIn(value, currencyCode!)) {
      throw fieldError(
        'value',
        'isAmount',
        `value must be an amount in ${currencyCode!.toUpperCase()} (no more decimals than it has)`,
      );
    }
    if (type === 'buy_x_get_y' && fields.buyQuantity === null) {
      throw fieldError('buy_x_get_y', 'required', 'buy_x_get_y is required for a buy_x_get_y promotion');
    }
    if (type !== 'buy_x_get_y' && fields.buyQuantity !== null) {
      throw fieldError(
        'buy_x_get_y',
        'buyXGetYOnly',
        'only a buy_x_get_y promotion has buy_x_get_y (send null)',
      );
    }
    if (fields.startsAt !== null && fields.endsAt !== null && fields.endsAt <= fields.startsAt) {
      throw fieldError('ends_at', 'after', 'ends_at must be after starts_at');
    }
    const missingGroups = await this.groups.missing(tx, fields.customerGroupIds ?? []);
    if (missingGroups.length > 0) {
      throw fieldError(
        'conditions.customer_group_ids',
        'exists',
        `no customer group ${missingGroups.join(', ')}`,
      );
    }
    for (const [field, table, ids] of [
      ['conditions.product_ids', 'products', fields.productIds],
      ['conditions.category_ids', 'categories', fields.categoryIds],
    ] as const) {
      const missing = await missingRows(tx, table, ids ?? []);
      if (missing.length > 0)
        throw fieldError(field, 'exists', `no ${table.slice(0, -1)} ${missing.join(', ')}`);
    }
    if (fields.codeKey !== null) {
      const other = await tx.findOneBy(Promotion, { codeKey: fields.codeKey });
      if (other !== null && other.id !== id) throw codeTaken(fields.code!);
    }
  }
}

/** The promotion's fields with what a request sets; conditions change field by field. */
function withChanges(current: PromotionFields, dto: UpdatePromotionDto): PromotionFields {
  const conditions = dto.conditions ?? {};
  const buy = dto.buy_x_get_y;
  const date = (value: string | null | undefined) =>
    value === undefined ? undefined : value === null ? null : new Date(value);
  const changes = {
    code: dto.code,
    codeKey: dto.code === undefined ? undefined : (dto.code?.toLowerCase() ?? null),
    description: dto.description,
    type: dto.type,
    value: dto.value,
    currencyCode: dto.currency_code,
    target: dto.target,
    minSubtotal: conditions.min_subtotal,
    productIds: sorted(conditions.product_ids),
    categoryIds: sorted(conditions.category_ids),
    customerGroupIds: sorted(conditions.customer_group_ids),
    firstOrderOnly: conditions.first_order_only,
    buyQuantity: buy === undefined ? undefined : (buy?.buy_quantity ?? null),
    getQuantity: buy === undefined ? undefined : (buy?.get_quantity ?? null),
    getPercentage: buy === undefined ? undefined : buy === null ? null : (buy.get_percentage ?? 100),
    startsAt: date(dto.starts_at),
    endsAt: date(dto.ends_at),
    usageLimit: dto.usage_limit,
    usageLimitPerCustomer: dto.usage_limit_per_customer,
    combinable: dto.combinable,
    isActive: dto.is_active,
  };
  return {
    ...current,
    ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
  } as PromotionFields;
}

/** A list of ids without repeats, ascending; an empty list is none (null). */
function sorted(ids: number[] | null | undefined): number[] | null | undefined {
  if (ids === undefined || ids === null) return ids;
  return ids.length === 0 ? null : [...new Set(ids)].sort((a, b) => a - b);
}

async function missingRows(tx: EntityManager, table: string, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows: Array<{ id: number | string }> = await tx.query(
    `SELECT id FROM ${table} WHERE id IN (${placeholders(ids.length)})`,
    [...ids],
  );
  const found = new Set(rows.map((row) => Number(row.id)));
  return ids.filter((id) => !found.has(id));
}

function isCurrency(code: string): boolean {
  try {
    return Intl.supportedValuesOf('currency').includes(code.toUpperCase());
  } catch {
    return false;
  }
}

const notFound = (id: number) => new NotFoundException(`Promotion ${id} not found`);

const codeTaken = (code: string) =>
  fieldError('code', 'unique', `code ${code} is taken (codes are unique ignoring case)`);
