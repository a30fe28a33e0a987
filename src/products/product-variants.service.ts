import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { type CurrencyAmounts, currencyAmountsOf, type CurrencyPrice } from '../pricing/currency-prices.js';
import { fieldError, type FieldError, ValidationFailedException } from '../common/validation.js';
import { isUniqueViolation } from '../database/errors.js';
import { changedRows, insertRow } from '../database/raw-query.js';
import { sqlDatetime } from '../database/timestamps.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { toCents } from '../common/money.js';
import {
  CreateVariantDto,
  MAX_VARIANTS,
  UpdateVariantDto,
  type VariantResponseDto,
} from './dto/variant.dto.js';
import {
  combinationKey,
  defaultTitle,
  type OptionValues,
  optionsProblems,
  optionValuesProblems,
  type ProductOption,
} from './product-options.js';
import { EventBus } from '../events/event-bus.js';
import { UploadHolds } from '../upload/upload-holds.js';
import { readProductDetail } from './product-detail.js';
import { ProductListTotals } from './product-list-totals.js';
import { refreshSearchText, STOCK_STATE } from './product-statements.js';
import { writeProductWords } from './product-words.js';
import { writeProductOptionValues } from './product-option-values.js';
import { writtenPrices } from './product-prices.js';
import {
  ACTIVE_VARIANT_PRICES,
  COMBINATION_OWNER,
  derivedPrices,
  DELETE_VARIANT,
  INSERT_PRODUCT_OPTIONS,
  INSERT_VARIANT,
  LIVE_VARIANTS,
  PRODUCT_OPTIONS,
  REFRESH_DERIVED,
  SET_DERIVED_PRICES,
  SKU_OWNER,
  toVariantResponse,
  UPDATE_PRODUCT_OPTIONS,
  UPDATE_VARIANT,
  VARIANT_BY_ID,
  VARIANT_OF_PRODUCT,
  type VariantRow,
  VARIANTS_OF_PRODUCT,
} from './variant-statements.js';

/** A variant's fields after a create or a change, as they are written. */
interface VariantFields {
  sku: string;
  title: string;
  options: OptionValues;
  priceCents: number;
  /** The other currencies' prices (minor units), null for none. */
  prices: CurrencyAmounts | null;
  stock: number;
  isActive: boolean;
  position: number;
  image: string;
}

/**
 * Options and variants of products. Every change runs in one transaction that first locks the product's row,
 * then writes the variant and refreshes the product's derived price and stock (REFRESH_DERIVED).
 */
@Injectable()
export class ProductVariants {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly uploads: UploadHolds,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Sets a product's options inside the caller's transaction (product create and PUT, which lock or insert the
   * product row first), and their rows of the option values' index. With live variants, every one of them must
   * still match the new options.
   */
  async setOptions(tx: Tx, productId: number, options: ProductOption[]): Promise<void> {
    const problems = optionsProblems(options);
    if (problems.length > 0) throw new ValidationFailedException(problems);
    const stored = await this.optionsOf(tx, productId);
    const live: VariantRow[] = stored === null ? [] : await tx.query(VARIANTS_OF_PRODUCT, [productId]);
    for (const variant of live) {
      if (optionValuesProblems(options, JSON.parse(variant.options) as OptionValues).length > 0) {
        throw fieldError(
          'options',
          'matchesVariants',
          `options must keep every value of the live variants: variant ${variant.id} (${variant.sku}) has ` +
            `${variant.options}`,
        );
      }
    }
    const json = JSON.stringify(options.map(({ name, values }) => ({ name, values })));
    if (stored === null) await tx.query(INSERT_PRODUCT_OPTIONS, [productId, json]);
    else await tx.query(UPDATE_PRODUCT_OPTIONS, [json, productId]);
    await writeProductOptionValues(tx, productId, options);
  }

  async create(productId: number, dto: CreateVariantDto): Promise<VariantResponseDto> {
    const prices = this.pricesOf(dto.prices, dto.price);
    return this.write('create variant', productId, dto.image, async (tx, options, now) => {
      const [{ n }]: Array<{ n: number | string }> = await tx.query(LIVE_VARIANTS, [productId]);
      if (Number(n) >= MAX_VARIANTS) {
        throw fieldError('', 'maxVariants', `A product has at most ${MAX_VARIANTS} variants`);
      }
      const fields: VariantFields = {
        sku: dto.sku,
        title: dto.title ?? defaultTitle(options, dto.options, dto.sku),
        options: dto.options,
        priceCents: toCents(dto.price),
        prices: prices?.others ?? null,
        stock: dto.stock ?? 0,
        isActive: dto.is_active ?? true,
        position: dto.position ?? 0,
        image: dto.image ?? '',
      };
      await this.assertAvailable(tx, productId, options, fields, null);
      if (options.length === 0 && (await this.optionsOf(tx, productId)) === null) {
        // The row tells a product read that there are variants to read.
        await tx.query(INSERT_PRODUCT_OPTIONS, [productId, '[]']);
      }
      return insertRow(tx, INSERT_VARIANT, [
        productId,
        ...columnValues(options, fields),
        fields.image,
        now,
        now,
      ]);
    });
  }

  async update(productId: number, variantId: number, dto: UpdateVariantDto): Promise<VariantResponseDto> {
    const prices = this.pricesOf(dto.prices, dto.price);
    return this.write('update variant', productId, dto.image, async (tx, options, now) => {
      const row = await this.variantOrFail(tx, productId, variantId);
      const current = toVariantResponse(row, this.config.payments.currency, '');
      const values = dto.options ?? current.options;
      const fields: VariantFields = {
        sku: dto.sku ?? current.sku,
        // A title follows changed option values unless one is given.
        title:
          dto.title ??
          (dto.options === undefined ? current.title : defaultTitle(options, values, dto.sku ?? current.sku)),
        options: values,
        priceCents:
          dto.price === undefined ? (prices?.defaultAmount ?? Number(row.price_cents)) : toCents(dto.price),
        prices: prices === undefined ? currencyAmountsOf(row.prices) : prices.others,
        stock: dto.stock ?? current.stock,
        isActive: dto.is_active ?? current.is_active,
        position: dto.position ?? current.position,
        image: dto.image ?? current.image,
      };
      await this.assertAvailable(tx, productId, options, fields, variantId);
      await tx.query(UPDATE_VARIANT, [...columnValues(options, fields), fields.image, now, variantId]);
      return variantId;
    });
  }

  async remove(productId: number, variantId: number): Promise<void> {
    await this.write('delete variant', productId, undefined, async (tx, _options, now) => {
      await this.variantOrFail(tx, productId, variantId);
      await changedRows(tx, DELETE_VARIANT, [now, now, variantId]);
      return variantId;
    });
  }

  /**
   * Runs one variant change: holds the image's upload (before the product row, the order of every product
   * write), locks the product (404 when there is none), gives `change` its options, then refreshes the
   * product's derived price and stock and its search text, marks the catalogue changed and publishes
   * `product.updated` (and `product.back_in_stock` when the derived stock left 0). Gives the variant after.
   */
  private async write(
    name: string,
    productId: number,
    image: string | undefined,
    change: (tx: Tx, options: ProductOption[], now: string) => Promise<number>,
  ): Promise<VariantResponseDto> {
    try {
      return await this.transactions.run(name, async (tx) => {
        if (image !== undefined && image !== '' && !(await this.uploads.holdForProduct(tx, image))) {
          throw fieldError(
            'image',
            'uploadedFile',
            'image must be the filename of a file uploaded through /upload',
          );
        }
        const mysql = tx.connection.options.type === 'mysql';
        const [before]: Array<{ stock: number }> = await tx.query(
          mysql ? `${STOCK_STATE} FOR UPDATE` : STOCK_STATE,
          [productId],
        );
        if (before === undefined) throw new NotFoundException(`Product ${productId} not found`);
        const now = sqlDatetime(new Date());
        const variantId = await change(tx, (await this.optionsOf(tx, productId)) ?? [], now);
        await changedRows(tx, REFRESH_DERIVED, [now, productId]);
        const active: Array<{ prices: string | null }> = await tx.query(ACTIVE_VARIANT_PRICES, [productId]);
        if (active.length > 0) {
          const derived = derivedPrices(active);
          await changedRows(tx, SET_DERIVED_PRICES, [
            derived === null ? null : JSON.stringify(derived),
            productId,
          ]);
        }
        await refreshSearchText(tx, productId);
        await ProductListTotals.catalogChanged(tx);
        await writeProductWords(tx, productId);
        const product = (await readProductDetail(tx, productId, true, this.config.payments.currency))!;
        await this.events.publish(tx, 'product.updated', product);
        if (Number(before.stock) === 0 && product.stock > 0) {
          await this.events.publish(tx, 'product.back_in_stock', product);
        }
        const [row]: VariantRow[] = await tx.query(VARIANT_BY_ID, [variantId]);
        return toVariantResponse(row, this.config.payments.currency, product.tax_class);
      });
    } catch (error) {
      // Two concurrent writes for the same SKU or combination: the unique index lets one through.
      if (isUniqueViolation(error)) {
        const sku = String((error as Error).message).includes('sku_key');
        throw sku
          ? fieldError('sku', 'unique', 'sku is already used by another variant')
          : fieldError('options', 'unique', 'another variant of this product has these option values');
      }
      throw error;
    }
  }

  /** A write's `prices` checked against its `price` (undefined when it sends none). */
  private pricesOf(prices: CurrencyPrice[] | undefined, price: number | undefined) {
    return prices === undefined ? undefined : writtenPrices(prices, this.config.payments.currency, price);
  }

  private async optionsOf(tx: Tx, productId: number): Promise<ProductOption[] | null> {
    const [row]: Array<{ options: string }> = await tx.query(PRODUCT_OPTIONS, [productId]);
    return row === undefined ? null : (JSON.parse(row.options) as ProductOption[]);
  }

  private async variantOrFail(tx: Tx, productId: number, variantId: number): Promise<VariantRow> {
    const [row]: VariantRow[] = await tx.query(VARIANT_OF_PRODUCT, [variantId, productId]);
    if (row === undefined)
      throw new NotFoundException(`Variant ${variantId} of product ${productId} not found`);
    return row;
  }

  /** 400 unless the values match the options and the SKU and combination are free (`self` aside). */
  private async assertAvailable(
    tx: Tx,
    productId: number,
    options: ProductOption[],
    fields: VariantFields,
    self: number | null,
  ): Promise<void> {
    const problems: FieldError[] = optionValuesProblems(options, fields.options);
    const [skuOwner]: Array<{ id: number }> = await tx.query(SKU_OWNER, [fields.sku.toLowerCase()]);
    if (skuOwner !== undefined && Number(skuOwner.id) !== self) {
      problems.push({ field: 'sku', rule: 'unique', message: 'sku is already used by another variant' });
    }
    if (problems.length === 0) {
      const [owner]: Array<{ id: number }> = await tx.query(COMBINATION_OWNER, [
        productId,
        combinationKey(options, fields.options),
      ]);
      if (owner !== undefined && Number(owner.id) !== self) {
        problems.push({
          field: 'options',
          rule: 'unique',
          message: `variant ${owner.id} of this product already has these option values`,
        });
      }
    }
    if (problems.length > 0) throw new ValidationFailedException(problems);
  }
}

/** The columns sku .. position of INSERT_VARIANT and UPDATE_VARIANT, in their order. */
function columnValues(options: ProductOption[], fields: VariantFields): unknown[] {
  return [
    fields.sku,
    fields.sku.toLowerCase(),
    fields.title,
    JSON.stringify(fields.options),
    combinationKey(options, fields.options),
    fields.priceCents,
    fields.prices === null ? null : JSON.stringify(fields.prices),
    fields.stock,
    fields.isActive,
    fields.position,
  ];
}
