import { ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { toCents } from '../common/money.js';
import { pageWindow } from '../common/pagination.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { DEFAULT_TAX_CLASS } from '../common/tax-class.js';
import { ValidationFailedException } from '../common/validation.js';
import { type CurrencyPrice, type PricesWrite, pricesWrite } from '../pricing/currency-prices.js';
import {
  CreateShippingOptionDto,
  ShippingOptionQueryDto,
  SHIPPING_PRICE_MAX,
  ShippingOptionResponseDto,
  shipsTo,
  toShippingOptionResponse,
  UpdateShippingOptionDto,
} from './dto/shipping-option.dto.js';
import type { ShippingOptionCatalog } from './shipping-option-catalog.js';
import { ShippingOption } from './shipping-option.entity.js';

/**
 * Shipping options: an admin-kept list of a few rows, so the country filter (on a JSON column) runs over the
 * rows read rather than in SQL.
 */
@Injectable()
export class ShippingOptionsService implements ShippingOptionCatalog {
  constructor(
    @InjectRepository(ShippingOption) private readonly options: Repository<ShippingOption>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
  ) {}

  async create(dto: CreateShippingOptionDto): Promise<ShippingOptionResponseDto> {
    const prices = this.pricesOf(dto.prices, dto.price);
    const now = new Date();
    const option = this.options.create({
      name: dto.name,
      priceCents: toCents(dto.price),
      prices: prices?.others ?? null,
      taxClass: dto.tax_class ?? DEFAULT_TAX_CLASS,
      countries: dto.countries ?? [],
      isActive: dto.is_active ?? true,
      createdAt: now,
      updatedAt: now,
    });
    await this.transactions.run('create shipping option', (tx) => tx.insert(ShippingOption, option));
    return this.response(option);
  }

  /** Users and anonymous catalogue readers see active options only; admins see all and may filter. */
  async list(
    query: ShippingOptionQueryDto,
    actor: AuthUser | undefined,
  ): Promise<Paginated<ShippingOptionResponseDto>> {
    const isAdmin = actor?.role === 'admin';
    if (query.is_active !== undefined && !isAdmin) {
      throw new ForbiddenException('Only an admin may filter by is_active');
    }
    const isActive = isAdmin ? query.is_active : true;
    const rows = await this.options.find({
      where: isActive === undefined ? {} : { isActive },
      order: { id: 'ASC' },
    });
    const country = query.country;
    const matching = country === undefined ? rows : rows.filter((option) => shipsTo(option, country));
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    return new Paginated(
      matching.slice(skip, skip + pageSize).map((option) => this.response(option)),
      matching.length,
      page,
      pageSize,
    );
  }

  async get(id: number, actor: AuthUser | undefined): Promise<ShippingOptionResponseDto> {
    return this.response(await this.findOrFail(id, actor?.role === 'admin'));
  }

  async applicableTo(country: string): Promise<ShippingOptionResponseDto[]> {
    const rows = await this.options.find({ where: { isActive: true }, order: { id: 'ASC' } });
    return rows.filter((option) => shipsTo(option, country)).map((option) => this.response(option));
  }

  async findApplicable(tx: Tx, id: number, country: string): Promise<ShippingOptionResponseDto | null> {
    const option = await tx.findOneBy(ShippingOption, { id, isActive: true });
    return option !== null && shipsTo(option, country) ? this.response(option) : null;
  }

  async update(id: number, dto: UpdateShippingOptionDto): Promise<ShippingOptionResponseDto> {
    const prices = this.pricesOf(dto.prices, dto.price);
    const changes: Partial<ShippingOption> = {
      name: dto.name,
      priceCents: dto.price === undefined ? prices?.defaultAmount : toCents(dto.price),
      // `prices` replaces the other currencies' (none left: NULL).
      prices: prices?.others,
      taxClass: dto.tax_class,
      countries: dto.countries,
      isActive: dto.is_active,
    };
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) delete changes[key as keyof ShippingOption];
    }
    const result = await this.transactions.run('update shipping option', (tx) =>
      tx.update(ShippingOption, { id, deletedAt: IsNull() }, { ...changes, updatedAt: new Date() }),
    );
    if (result.affected === 0) throw notFound(id);
    return this.response(await this.findOrFail(id, true));
  }

  /** Soft deletion: orders placed with the option keep their shipping total; the option is gone for everyone. */
  async remove(id: number): Promise<void> {
    const now = new Date();
    const result = await this.transactions.run('delete shipping option', (tx) =>
      // Dates given: softDelete() writes CURRENT_TIMESTAMP, which has whole seconds on SQLite.
      tx.update(ShippingOption, { id, deletedAt: IsNull() }, { deletedAt: now, updatedAt: now }),
    );
    if (result.affected === 0) throw notFound(id);
  }

  private response(option: ShippingOption): ShippingOptionResponseDto {
    return toShippingOptionResponse(option, this.config.payments.currency);
  }

  /** What a write's `prices` set (undefined when it sends none); 400 listing their problems. */
  private pricesOf(prices: CurrencyPrice[] | undefined, price: number | undefined): PricesWrite | undefined {
    if (prices === undefined) return undefined;
    const { write, problems } = pricesWrite(
      prices,
      this.config.payments.currency,
      price === undefined ? undefined : toCents(price),
      { minCents: 0, maxCents: toCents(SHIPPING_PRICE_MAX) },
    );
    if (problems.length > 0) throw new ValidationFailedException(problems);
    return write;
  }

  private async findOrFail(id: number, includeInactive: boolean): Promise<ShippingOption> {
    const option = await this.options.findOneBy({ id });
    if (option === null || (!option.isActive && !includeInactive)) throw notFound(id);
    return option;
  }
}

const notFound = (id: number) => new NotFoundException(`Shipping option ${id} not found`);
