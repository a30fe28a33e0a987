import { ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { decodeCursor, encodeCursor, pageWindow } from '../common/pagination.js';
import { fieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { changedRows } from '../database/raw-query.js';
import { sqlDatetime } from '../database/timestamps.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { UploadHolds } from '../upload/upload-holds.js';
import {
  CreateProductDto,
  ProductListQueryDto,
  ProductListSort,
  ProductResponseDto,
  toCents,
  toProductResponse,
  UpdateProductDto,
} from './dto/product.dto.js';
import type { ProductDetailResponseDto } from './dto/variant.dto.js';
import {
  InsufficientStockException,
  ProductCatalog,
  type ReservedLine,
  type StockRequest,
} from './product-catalog.js';
import type { ProductOption } from './product-options.js';
import { ProductVariants } from './product-variants.service.js';
import { Product } from './product.entity.js';
import {
  ProductListFilter,
  ProductListQuery,
  searchWords,
  searchWordsProblem,
} from './product-list.query.js';
import { ProductListTotals } from './product-list-totals.js';
import {
  ACTIVE_PRODUCT_BY_ID,
  GIVE_STOCK_BACK,
  HAS_ACTIVE_VARIANTS,
  namesAndPricesOf,
  PRODUCT_BY_ID,
  productFromRow,
  ProductRow,
  STOCK_STATE,
  TAKE_STOCK,
  TAKE_STOCK_FOR_VARIANT,
} from './product-statements.js';
import {
  GIVE_STOCK_BACK_FOR_VARIANT,
  GIVE_VARIANT_STOCK_BACK,
  productsOfVariantsOf,
  TAKE_VARIANT_STOCK,
  VARIANT_STOCK_STATE,
  variantSnapshotsOf,
} from './variant-statements.js';

/** What a cursor's sort value must be, per sort: none for id, cents for price, the name, the stored timestamp. */
const CURSOR_VALUE: Record<ProductListSort, (value: unknown) => value is number | string | undefined> = {
  id: (value): value is undefined => value === undefined,
  '-id': (value): value is undefined => value === undefined,
  price: (value): value is number => Number.isSafeInteger(value),
  '-price': (value): value is number => Number.isSafeInteger(value),
  name: (value): value is string => typeof value === 'string' && value.length <= 200,
  '-name': (value): value is string => typeof value === 'string' && value.length <= 200,
  created_at: isSqlTimestamp,
  '-created_at': isSqlTimestamp,
  relevance: (_value): _value is undefined => false,
};

function isSqlTimestamp(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/.test(value);
}

@Injectable()
export class ProductsService implements ProductCatalog {
  constructor(
    @InjectRepository(Product) private readonly products: Repository<Product>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly uploads: UploadHolds,
    private readonly listQuery: ProductListQuery,
    private readonly totals: ProductListTotals,
    private readonly variants: ProductVariants,
  ) {}

  async create(dto: CreateProductDto): Promise<ProductDetailResponseDto> {
    const product = this.products.create({
      name: dto.name,
      description: dto.description ?? '',
      priceCents: toCents(dto.price),
      stock: dto.stock ?? 0,
      categoryId: dto.category_id,
      image: '',
      isActive: true,
    });
    await this.transactions.run('create product', async (manager) => {
      await manager.insert(Product, product);
      if (dto.options !== undefined && dto.options.length > 0) {
        await this.variants.setOptions(manager, product.id, dto.options);
      }
      await ProductListTotals.catalogChanged(manager);
    });
    return this.detail(product.id, true);
  }

  async list(
    query: ProductListQueryDto,
    actor: AuthUser | undefined,
  ): Promise<Paginated<ProductResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const isAdmin = actor?.role === 'admin';
    if (query.is_active !== undefined && !isAdmin) {
      throw new ForbiddenException('Only an admin may filter by is_active');
    }
    if (query.min_price !== undefined && query.max_price !== undefined && query.min_price > query.max_price) {
      throw fieldError('min_price', 'notAboveMaxPrice', 'min_price must not be greater than max_price');
    }
    const searching = query.search !== undefined && query.search.trim() !== '';
    const sort = query.sort ?? (searching ? 'relevance' : 'id');
    if (sort === 'relevance' && !searching) {
      throw fieldError('sort', 'relevanceNeedsSearch', 'sort=relevance needs a search');
    }
    if (query.cursor !== undefined && sort === 'relevance') {
      throw fieldError('cursor', 'cursorSort', 'cursor is not available with sort=relevance; use page');
    }
    const after =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort, CURSOR_VALUE[sort]);
    const words = searching ? searchWords(query.search as string) : undefined;
    const problem = words === undefined ? null : searchWordsProblem(words);
    if (problem !== null) throw fieldError('search', problem.rule, problem.message);

    const filter: ProductListFilter = {
      active: isAdmin ? query.is_active : true,
      categoryId: query.category_id,
      minCents: query.min_price === undefined ? undefined : toCents(query.min_price),
      maxCents: query.max_price === undefined ? undefined : toCents(query.max_price),
      inStock: query.in_stock,
      searchWords: words,
    };
    const offset = after === undefined ? skip : 0;
    const { products, last, matched } = await this.listQuery.page(filter, {
      sort,
      limit: pageSize,
      offset,
      after,
    });
    // The count is needed only when it cannot be told from the page: more follow, or a page past the end.
    const total =
      after !== undefined || last !== null || (products.length === 0 && offset > 0)
        ? (matched ?? (await this.totals.total(filter)))
        : offset + products.length;
    const nextCursor = last === null || sort === 'relevance' ? null : encodeCursor(sort, last);
    return new Paginated(products, total, after === undefined ? page : null, pageSize, nextCursor);
  }

  async get(id: number, actor: AuthUser | undefined): Promise<ProductDetailResponseDto> {
    return this.detail(id, actor?.role === 'admin');
  }

  async update(id: number, dto: UpdateProductDto): Promise<ProductDetailResponseDto> {
    const changes: Partial<Product> = {
      name: dto.name,
      description: dto.description,
      priceCents: dto.price === undefined ? undefined : toCents(dto.price),
      stock: dto.stock,
      categoryId: dto.category_id,
      image: dto.image,
      isActive: dto.is_active,
    };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    // One transaction with the check of the image, so that the file cannot be removed in between.
    await this.transactions.run('update product', async (manager) => {
      if (
        dto.image !== undefined &&
        dto.image !== '' &&
        !(await this.uploads.holdForProduct(manager, dto.image))
      ) {
        throw fieldError(
          'image',
          'uploadedFile',
          'image must be the filename of a file uploaded through /upload',
        );
      }
      // The row is locked from here on (MySQL): a variant change of this product waits for this transaction.
      const updated = await manager.update(
        Product,
        { id, deletedAt: IsNull() },
        { ...defined, updatedAt: new Date() },
      );
      if (updated.affected === 0) throw new NotFoundException(`Product ${id} not found`);
      const derived = (['price', 'stock'] as const).filter((field) => dto[field] !== undefined);
      if (derived.length > 0 && (await manager.query(HAS_ACTIVE_VARIANTS, [id])).length > 0) {
        throw new ValidationFailedException(
          derived.map((field) => ({
            field,
            rule: 'derivedFromVariants',
            message: `${field} of a product with active variants is theirs: change the variants instead`,
          })),
        );
      }
      if (dto.options !== undefined) await this.variants.setOptions(manager, id, dto.options);
      await ProductListTotals.catalogChanged(manager);
    });
    return this.detail(id, true);
  }

  async remove(id: number): Promise<void> {
    const result = await this.transactions.run('delete product', async (manager) => {
      const deleted = await manager.softDelete(Product, { id, deletedAt: IsNull() });
      await ProductListTotals.catalogChanged(manager);
      return deleted;
    });
    if (result.affected === 0) throw new NotFoundException(`Product ${id} not found`);
  }

  async assertVisible(productId: number, actor: AuthUser | undefined): Promise<void> {
    await this.findOrFail(productId, actor?.role === 'admin');
  }

  async reserveStock(tx: Tx, requests: StockRequest[]): Promise<ReservedLine[]> {
    const productOf = await this.productsOfVariants(tx, requests);
    const lines = requests.map((request) => ({
      request,
      productId: request.variantId == null ? request.productId! : productOf.get(request.variantId)!,
    }));
    const lockOrder = [...lines].sort(
      (a, b) => a.productId - b.productId || (a.request.variantId ?? 0) - (b.request.variantId ?? 0),
    );
    const now = sqlDatetime(new Date());
    for (const { request, productId } of lockOrder) {
      const { variantId, quantity } = request;
      if (variantId == null) {
        const taken = await changedRows(tx, TAKE_STOCK, [quantity, now, productId, quantity]);
        if (taken === 0) throw await this.whyNotReservable(tx, request, productId);
        continue;
      }
      const taken =
        (await changedRows(tx, TAKE_STOCK_FOR_VARIANT, [quantity, now, productId, quantity])) > 0 &&
        (await changedRows(tx, TAKE_VARIANT_STOCK, [quantity, now, variantId, quantity])) > 0;
      if (!taken) throw await this.whyNotReservable(tx, request, productId);
    }

    const productIds = lines.filter((line) => line.request.variantId == null).map((line) => line.productId);
    const products: Array<{ id: number; name: string; price_cents: number }> =
      productIds.length === 0 ? [] : await tx.query(namesAndPricesOf(productIds.length), productIds);
    const variantIds = [...productOf.keys()];
    const variants: Array<{ id: number; name: string; price_cents: number; sku: string; title: string }> =
      variantIds.length === 0 ? [] : await tx.query(variantSnapshotsOf(variantIds.length), variantIds);
    const productRows = new Map(products.map((row) => [Number(row.id), row]));
    const variantRows = new Map(variants.map((row) => [Number(row.id), row]));
    return lines.map(({ request, productId }) => {
      const variant = request.variantId == null ? undefined : variantRows.get(request.variantId)!;
      const row = variant ?? productRows.get(productId)!;
      return {
        productId,
        variantId: request.variantId ?? null,
        name: row.name,
        priceCents: Number(row.price_cents),
        sku: variant?.sku ?? null,
        variantTitle: variant?.title ?? null,
      };
    });
  }

  async releaseStock(tx: Tx, requests: StockRequest[]): Promise<void> {
    const lockOrder = [...requests].sort(
      (a, b) => a.productId! - b.productId! || (a.variantId ?? 0) - (b.variantId ?? 0),
    );
    const now = sqlDatetime(new Date());
    for (const { productId, variantId, quantity } of lockOrder) {
      if (variantId == null) {
        await changedRows(tx, GIVE_STOCK_BACK, [quantity, now, productId]);
        continue;
      }
      await changedRows(tx, GIVE_STOCK_BACK_FOR_VARIANT, [quantity, now, productId, variantId]);
      await changedRows(tx, GIVE_VARIANT_STOCK_BACK, [quantity, now, variantId]);
    }
  }

  /**
   * The product of each variant requested (one read, before any lock: a variant never changes product); 400
   * for an unknown variant or a product_id that is not the variant's.
   */
  private async productsOfVariants(tx: Tx, requests: StockRequest[]): Promise<Map<number, number>> {
    const byVariant = requests.filter((request) => request.variantId != null);
    if (byVariant.length === 0) return new Map();
    const rows: Array<{ id: number; product_id: number }> = await tx.query(
      productsOfVariantsOf(byVariant.length),
      byVariant.map((request) => request.variantId),
    );
    const productOf = new Map(rows.map((row) => [Number(row.id), Number(row.product_id)]));
    for (const { variantId, productId, item = 0 } of byVariant) {
      const actual = productOf.get(variantId!);
      if (actual === undefined) {
        throw fieldError(`items.${item}.variant_id`, 'variantExists', `Variant ${variantId} not found`);
      }
      if (productId !== undefined && productId !== actual) {
        throw fieldError(
          `items.${item}.product_id`,
          'matchesVariant',
          `items.${item}.product_id must be ${actual}, the product of variant ${variantId}, or be left out`,
        );
      }
    }
    return productOf;
  }

  private async whyNotReservable(
    manager: EntityManager,
    { variantId, quantity, item = 0 }: StockRequest,
    productId: number,
  ): Promise<ValidationFailedException> {
    const [product]: Array<{ stock: number; is_active: number | boolean }> = await manager.query(
      STOCK_STATE,
      [productId],
    );
    if (product === undefined) return fieldError('items', 'productExists', `Product ${productId} not found`);
    if (!product.is_active) {
      return fieldError('items', 'productAvailable', `Product ${productId} is not available`);
    }
    if (variantId == null) {
      if ((await manager.query(HAS_ACTIVE_VARIANTS, [productId])).length > 0) {
        return fieldError(
          `items.${item}.variant_id`,
          'required',
          `items.${item}.variant_id is required: product ${productId} has variants`,
        );
      }
      return new InsufficientStockException(
        `Product ${productId} has insufficient stock: requested ${quantity}, available ${Number(product.stock)}`,
      );
    }
    const [variant]: Array<{ stock: number; is_active: number | boolean }> = await manager.query(
      VARIANT_STOCK_STATE,
      [variantId],
    );
    if (variant === undefined || !variant.is_active) {
      return fieldError('items', 'variantAvailable', `Variant ${variantId} is not available`);
    }
    return new InsufficientStockException(
      `Variant ${variantId} of product ${productId} has insufficient stock: requested ${quantity}, ` +
        `available ${Number(variant.stock)}`,
    );
  }

  /** The product as its detail shows it: with its options and its variants (the active ones for users). */
  private async detail(id: number, includeInactive: boolean): Promise<ProductDetailResponseDto> {
    const [row]: ProductRow[] = await this.products.query(
      includeInactive ? PRODUCT_BY_ID : ACTIVE_PRODUCT_BY_ID,
      [id],
    );
    if (row === undefined) throw new NotFoundException(`Product ${id} not found`);
    const options = row.options == null ? [] : (JSON.parse(row.options) as ProductOption[]);
    return {
      ...toProductResponse(productFromRow(row)),
      options,
      variants: row.options == null ? [] : await this.variants.of(id, includeInactive),
    };
  }

  private async findOrFail(id: number, includeInactive: boolean): Promise<Product> {
    const [row]: ProductRow[] = await this.products.query(
      includeInactive ? PRODUCT_BY_ID : ACTIVE_PRODUCT_BY_ID,
      [id],
    );
    if (row === undefined) throw new NotFoundException(`Product ${id} not found`);
    return productFromRow(row);
  }
}
