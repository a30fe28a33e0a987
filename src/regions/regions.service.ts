import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, In } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import type { PageQueryDto } from '../common/pagination.js';
import { pageWindow } from '../common/pagination.js';
import { fieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import type { CreateRegionDto, RegionResponseDto, UpdateRegionDto } from './dto/region.dto.js';
import { RegionDirectory, type RegionInfo } from './region-directory.js';
import { Region, RegionCountry } from './region.entity.js';
import { REGION_BY_ID, REGION_SERVING, type RegionRow, regionOf } from './region-statements.js';

/**
 * Regions and their countries. A country is in at most one region: the primary key of region_countries decides,
 * so that two requests listing the same country at once leave it in one region and refuse the other (400).
 */
@Injectable()
export class RegionsService extends RegionDirectory {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
  ) {
    super();
  }

  async find(manager: EntityManager, id: number | null): Promise<RegionInfo | null> {
    return regionOf((await manager.query(REGION_BY_ID, [id])) as RegionRow[]);
  }

  async serving(manager: EntityManager, country: string): Promise<RegionInfo> {
    return regionOf((await manager.query(REGION_SERVING, [country])) as RegionRow[])!;
  }

  /** Id order, paged. */
  async list(query: PageQueryDto): Promise<Paginated<RegionResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const manager = this.dataSource.manager;
    const [regions, total] = await manager.findAndCount(Region, {
      order: { id: 'ASC' },
      skip,
      take: pageSize,
    });
    return new Paginated(await withCountries(manager, regions), total, page, pageSize);
  }

  async get(id: number): Promise<RegionResponseDto> {
    return this.read(this.dataSource.manager, id);
  }

  async create(dto: CreateRegionDto): Promise<RegionResponseDto> {
    const countries = dto.countries ?? [];
    const now = new Date();
    return this.writingCountries(countries, null, () =>
      this.transactions.run('create region', async (tx) => {
        await assertCountriesFree(tx, countries, null);
        const result = await tx.insert(Region, {
          name: dto.name,
          currencyCode: dto.currency_code,
          pricesIncludeTax: dto.prices_include_tax ?? false,
          isDefault: false,
          createdAt: now,
          updatedAt: now,
        });
        const id = Number(result.identifiers[0].id);
        await insertCountries(tx, id, countries);
        return this.read(tx, id);
      }),
    );
  }

  /** Partial; `countries` sent replaces the list. The default region keeps its currency (CURRENCY). */
  async update(id: number, dto: UpdateRegionDto): Promise<RegionResponseDto> {
    const countries = dto.countries;
    return this.writingCountries(countries ?? [], id, () =>
      this.transactions.run('update region', async (tx) => {
        const region = await lockRegion(tx, id);
        if (
          region.isDefault &&
          dto.currency_code !== undefined &&
          dto.currency_code !== region.currencyCode
        ) {
          throw fieldError(
            'currency_code',
            'defaultRegionCurrency',
            `currency_code of the default region is CURRENCY (${region.currencyCode}) and cannot be changed`,
          );
        }
        const changes = Object.fromEntries(
          Object.entries({
            name: dto.name,
            currencyCode: dto.currency_code,
            pricesIncludeTax: dto.prices_include_tax,
          }).filter(([, value]) => value !== undefined),
        );
        await tx.update(Region, { id }, { ...changes, updatedAt: new Date() });
        if (countries !== undefined) {
          await assertCountriesFree(tx, countries, id);
          await tx.delete(RegionCountry, { regionId: id });
          await insertCountries(tx, id, countries);
        }
        return this.read(tx, id);
      }),
    );
  }

  /**
   * Refused for the default region. Carts in the region move to the default region (region_id NULL, which
   * RegionDirectory.find reads as the default); orders keep the currency and amounts they were placed with.
   */
  async remove(id: number): Promise<void> {
    await this.transactions.run('delete region', async (tx) => {
      const region = await lockRegion(tx, id);
      if (region.isDefault) {
        throw fieldError('id', 'defaultRegion', `Region ${id} is the default region and cannot be deleted`);
      }
      await tx.query('UPDATE carts SET region_id = NULL WHERE region_id = ?', [id]);
      await tx.delete(RegionCountry, { regionId: id });
      await tx.delete(Region, { id });
    });
  }

  private async read(manager: EntityManager, id: number): Promise<RegionResponseDto> {
    const region = await manager.findOneBy(Region, { id });
    if (region === null) throw notFound(id);
    return (await withCountries(manager, [region]))[0];
  }

  /**
   * Runs a write listing `countries` for region `id` (null: a new one). The check inside the transaction cannot
   * see a country another transaction is listing at the same moment: the primary key refuses the second insert,
   * and once that transaction is rolled back, the 400 names the region that took the country.
   */
  private async writingCountries<T>(
    countries: string[],
    id: number | null,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await assertCountriesFree(this.dataSource.manager, countries, id);
      throw fieldError('countries', 'unique', 'countries must not list a country of another region');
    }
  }
}

const notFound = (id: number) => new NotFoundException(`Region ${id} not found`);

async function lockRegion(tx: Tx, id: number): Promise<Region> {
  const region = await forUpdate(tx.createQueryBuilder(Region, 'r').where('r.id = :id', { id })).getOne();
  if (region === null) throw notFound(id);
  return region;
}

/** 400 naming `countries` (rule `unique`) when one of them is in a region other than `id`. */
async function assertCountriesFree(
  manager: EntityManager,
  countries: string[],
  id: number | null,
): Promise<void> {
  if (countries.length === 0) return;
  const taken = (await manager.query(
    `SELECT rc.country, r.id, r.name FROM region_countries rc JOIN regions r ON r.id = rc.region_id ` +
      `WHERE rc.country IN (${countries.map(() => '?').join(', ')})`,
    countries,
  )) as Array<{ country: string; id: number | string; name: string }>;
  const others = taken
    .filter((row) => Number(row.id) !== id)
    .sort((a, b) => countries.indexOf(a.country) - countries.indexOf(b.country));
  if (others.length === 0) return;
  throw new ValidationFailedException([
    {
      field: 'countries',
      rule: 'unique',
      message:
        'countries must not list a country of another region: ' +
        others.map((row) => `${row.country} is in region ${Number(row.id)} (${row.name})`).join(', '),
    },
  ]);
}

async function insertCountries(tx: Tx, regionId: number, countries: string[]): Promise<void> {
  if (countries.length === 0) return;
  await tx.insert(
    RegionCountry,
    countries.map((country, position) => ({ country, regionId, position })),
  );
}

async function withCountries(manager: EntityManager, regions: Region[]): Promise<RegionResponseDto[]> {
  const ids = regions.map((region) => region.id);
  const rows =
    ids.length === 0
      ? []
      : await manager.find(RegionCountry, { where: { regionId: In(ids) }, order: { position: 'ASC' } });
  return regions.map((region) => ({
    id: region.id,
    name: region.name,
    currency_code: region.currencyCode,
    countries: rows.filter((row) => row.regionId === region.id).map((row) => row.country),
    prices_include_tax: Boolean(region.pricesIncludeTax),
    is_default: Boolean(region.isDefault),
    created_at: region.createdAt.toISOString(),
    updated_at: region.updatedAt.toISOString(),
  }));
}
