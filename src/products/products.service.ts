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
import { CategoryDirectory } from '../categories/category-directory.js';
import { EventBus } from '../events/event-bus.js';
import { UploadHolds } from '../upload/upload-holds.js';
import { toCents } from '../common/money.js';
import {
  CreateProductDto,
  ProductListQueryDto,
  ProductListSort,
  ProductResponseDto,
  toProductResponse,
  UpdateProductDto,
} from './dto/product.dto.js';
import {
  InsufficientStockException,
  ProductCatalog,
  type ReservedProduct,
  type StockRequest,
} from './product-catalog.js';
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
  namesAndPricesOf,
  PRODUCT_BY_ID,
  productFromRow,
  productsByIdsOf,
  ProductRow,
  STOCK_STATE,
  TAKE_STOCK,
} from './product-statements.js';

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
    private readonly events: EventBus,
    private readonly categories: CategoryDirectory,
  ) {}

  async create(dto: CreateProductDto): Promise<ProductResponseDto> {
    const product = this.products.create({
      name: dto.name,
      description: dto.description ?? '',
      priceCents: toCents(dto.price),
      stock: dto.stock ?? 0,
      categoryId: dto.category_id,
      image: '',
      isActive: true,
    });
    return this.transactions.run('create product', async (manager) => {
      await this.categories.ensureForProduct(manager, dto.category_id);
      await manager.insert(Product, product);
      await ProductListTotals.catalogChanged(manager);
      const created = toProductResponse(await this.findOrFail(product.id, true, manager));
      await this.events.publish(manager, 'product.created', created);
      return created;
    });
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
    if (query.include_descendants !== undefined && query.category_id === undefined) {
      throw fieldError('include_descendants', 'needsCategory', 'include_descendants needs a category_id');
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
      includeDescendants: query.include_descendants === true ? true : undefined,
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

  async get(id: number, actor: AuthUser | undefined): Promise<ProductResponseDto> {
    return toProductResponse(await this.findOrFail(id, actor?.role === 'admin'));
  }

  async update(id: number, dto: UpdateProductDto): Promise<ProductResponseDto> {
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
    return this.transactions.run('update product', async (manager) => {
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
      if (dto.category_id !== undefined) await this.categories.ensureForProduct(manager, dto.category_id);
      // The stock before, locked until commit, tells whether this change brings the product back in stock.
      const stockBefore = dto.stock === undefined ? undefined : await this.lockedStock(manager, id);
      const result = await manager.update(
        Product,
        { id, deletedAt: IsNull() },
        { ...defined, updatedAt: new Date() },
      );
      if (result.affected === 0) throw new NotFoundException(`Product ${id} not found`);
      await ProductListTotals.catalogChanged(manager);
      const updated = toProductResponse(await this.findOrFail(id, true, manager));
      await this.events.publish(manager, 'product.updated', updated);
      if (stockBefore === 0 && updated.stock > 0) {
        await this.events.publish(manager, 'product.back_in_stock', updated);
      }
      return updated;
    });
  }

  async remove(id: number): Promise<void> {
    await this.transactions.run('delete product', async (manager) => {
      const product = toProductResponse(await this.findOrFail(id, true, manager));
      const now = new Date();
      const deleted = await manager.update(
        Product,
        { id, deletedAt: IsNull() },
        // Dates given: softDelete() writes CURRENT_TIMESTAMP, which has whole seconds on SQLite.
        { deletedAt: now, updatedAt: now },
      );
      if (deleted.affected === 0) throw new NotFoundException(`Product ${id} not found`);
      await ProductListTotals.catalogChanged(manager);
      await this.events.publish(manager, 'product.deleted', product);
    });
  }

  async assertVisible(productId: number, actor: AuthUser | undefined): Promise<void> {
    await this.findOrFail(productId, actor?.role === 'admin');
  }

  async reserveStock(tx: Tx, requests: StockRequest[]): Promise<Map<number, ReservedProduct>> {
    const sorted = [...requests].sort((a, b) => a.productId - b.productId);
    const now = sqlDatetime(new Date());
    for (const { productId, quantity } of sorted) {
      const taken = await changedRows(tx, TAKE_STOCK, [quantity, now, productId, quantity]);
      if (taken === 0) throw await this.whyNotReservable(tx, productId, quantity);
    }
    const rows: Array<{ id: number; name: string; price_cents: number }> = await tx.query(
      namesAndPricesOf(sorted.length),
      sorted.map((request) => request.productId),
    );
    return new Map(
      rows.map((row) => [
        Number(row.id),
        { id: Number(row.id), name: row.name, priceCents: Number(row.price_cents) },
      ]),
    );
  }

  async releaseStock(tx: Tx, requests: StockRequest[]): Promise<void> {
    const given = new Map<number, number>();
    for (const { productId, quantity } of requests)
      given.set(productId, (given.get(productId) ?? 0) + quantity);
    const ids = [...given.keys()].sort((a, b) => a - b);
    if (ids.length === 0) return;
    const now = sqlDatetime(new Date());
    for (const id of ids) await changedRows(tx, GIVE_STOCK_BACK, [given.get(id), now, id]);
    // Read after the updates, under their row locks: a stock equal to what was given back was 0 before.
    const rows: ProductRow[] = await tx.query(productsByIdsOf(ids.length), ids);
    for (const row of rows.sort((a, b) => Number(a.id) - Number(b.id))) {
      const product = productFromRow(row);
      if (product.stock === given.get(product.id)) {
        await this.events.publish(tx, 'product.back_in_stock', toProductResponse(product));
      }
    }
  }

  /** The product's stock, its row locked until the transaction ends (MySQL); 404 when there is no such product. */
  private async lockedStock(tx: Tx, id: number): Promise<number> {
    const [row]: Array<{ stock: number }> = await tx.query(
      tx.connection.options.type === 'better-sqlite3' ? STOCK_STATE : `${STOCK_STATE} FOR UPDATE`,
      [id],
    );
    if (row === undefined) throw new NotFoundException(`Product ${id} not found`);
    return Number(row.stock);
  }

  private async whyNotReservable(
    manager: EntityManager,
    productId: number,
    quantity: number,
  ): Promise<ValidationFailedException> {
    const [product]: Array<{ stock: number; is_active: number | boolean }> = await manager.query(
      STOCK_STATE,
      [productId],
    );
    if (product === undefined) return fieldError('items', 'productExists', `Product ${productId} not found`);
    if (!product.is_active) {
      return fieldError('items', 'productAvailable', `Product ${productId} is not available`);
    }
    return new InsufficientStockException(
      `Product ${productId} has insufficient stock: requested ${quantity}, available ${Number(product.stock)}`,
    );
  }

  private async findOrFail(
    id: number,
    includeInactive: boolean,
    manager: EntityManager = this.products.manager,
  ): Promise<Product> {
    const [row]: ProductRow[] = await manager.query(includeInactive ? PRODUCT_BY_ID : ACTIVE_PRODUCT_BY_ID, [
      id,
    ]);
    if (row === undefined) throw new NotFoundException(`Product ${id} not found`);
    return productFromRow(row);
  }
}
