import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { pageWindow } from '../common/pagination.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import {
  CreateTaxRateDto,
  TaxRateQueryDto,
  TaxRateResponseDto,
  toTaxRateResponse,
  UpdateTaxRateDto,
} from './dto/tax-rate.dto.js';
import { TaxRateRow } from './tax-rate.entity.js';

type Place = Pick<TaxRateRow, 'country' | 'subdivision' | 'taxClass'>;

/** The rate table: one rate per country, subdivision ('' for the whole country) and tax class. */
@Injectable()
export class TaxRatesService {
  constructor(
    @InjectRepository(TaxRateRow) private readonly rates: Repository<TaxRateRow>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Id order, paged; `country` keeps that country's rates. */
  async list(query: TaxRateQueryDto): Promise<Paginated<TaxRateResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [rows, total] = await this.rates.findAndCount({
      where: query.country === undefined ? {} : { country: query.country },
      order: { id: 'ASC' },
      skip,
      take: pageSize,
    });
    return new Paginated(rows.map(toTaxRateResponse), total, page, pageSize);
  }

  async get(id: number): Promise<TaxRateResponseDto> {
    const row = await this.rates.findOneBy({ id });
    if (row === null) throw notFound(id);
    return toTaxRateResponse(row);
  }

  async create(dto: CreateTaxRateDto): Promise<TaxRateResponseDto> {
    const now = new Date();
    const row: Omit<TaxRateRow, 'id'> = {
      country: dto.country,
      subdivision: dto.subdivision ?? '',
      taxClass: dto.tax_class ?? 'standard',
      rate: toScale(dto.rate),
      name: dto.name,
      code: dto.code,
      createdAt: now,
      updatedAt: now,
    };
    return this.placing(row, () =>
      this.transactions.run('create tax rate', async (tx) => {
        await this.assertPlaceFree(tx, row, null);
        const result = await tx.insert(TaxRateRow, row);
        return toTaxRateResponse(
          await tx.findOneByOrFail(TaxRateRow, { id: Number(result.identifiers[0].id) }),
        );
      }),
    );
  }

  /** Partial; `subdivision: null` makes it the whole country's rate. */
  async update(id: number, dto: UpdateTaxRateDto): Promise<TaxRateResponseDto> {
    const changes = Object.fromEntries(
      Object.entries({
        country: dto.country,
        subdivision: dto.subdivision === null ? '' : dto.subdivision,
        taxClass: dto.tax_class,
        rate: dto.rate === undefined ? undefined : toScale(dto.rate),
        name: dto.name,
        code: dto.code,
      }).filter(([, value]) => value !== undefined),
    ) as Partial<TaxRateRow>;
    let place: Place | null = null;
    return this.placing(
      () => place,
      () =>
        this.transactions.run('update tax rate', async (tx) => {
          const current = await forUpdate(
            tx.createQueryBuilder(TaxRateRow, 't').where('t.id = :id', { id }),
          ).getOne();
          if (current === null) throw notFound(id);
          place = { ...pick(current), ...changes };
          await this.assertPlaceFree(tx, place, id);
          await tx.update(TaxRateRow, { id }, { ...changes, updatedAt: new Date() });
          return toTaxRateResponse(await tx.findOneByOrFail(TaxRateRow, { id }));
        }),
    );
  }

  async remove(id: number): Promise<void> {
    const result = await this.transactions.run('delete tax rate', (tx) => tx.delete(TaxRateRow, { id }));
    if (result.affected === 0) throw notFound(id);
  }

  /**
   * Runs a write of a rate at `place`. The check inside the transaction cannot see a rate another transaction is
   * inserting at the same moment: the unique index refuses the second, which becomes the same 400.
   */
  private async placing<T>(place: Place | (() => Place | null), write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const where = typeof place === 'function' ? place() : place;
      if (!isUniqueViolation(error) || where === null) throw error;
      await this.assertPlaceFree(this.rates.manager, where, null);
      throw placeTaken(where, null);
    }
  }

  /** 400 naming `tax_class` (rule `unique`) when a rate other than `id` has the same place and class. */
  private async assertPlaceFree(tx: Tx, place: Place, id: number | null): Promise<void> {
    const other = await tx.findOneBy(TaxRateRow, pick(place));
    if (other !== null && other.id !== id) throw placeTaken(place, other.id);
  }
}

/** The rate as the DECIMAL(9,4) column keeps it, on both databases. */
const toScale = (rate: number) => Math.round(rate * 10_000) / 10_000;

function pick({ country, subdivision, taxClass }: Place): Place {
  return { country, subdivision, taxClass };
}

const notFound = (id: number) => new NotFoundException(`Tax rate ${id} not found`);

function placeTaken(place: Place, id: number | null) {
  const where = place.subdivision === '' ? place.country : `${place.country}-${place.subdivision}`;
  const which = id === null ? 'another tax rate' : `tax rate ${id}`;
  return fieldError(
    'tax_class',
    'unique',
    `tax_class ${place.taxClass} in ${where} already has a rate: ${which}`,
  );
}
