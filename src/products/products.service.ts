import { ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { decodeCursor, encodeCursor, pageWindow } from '../common/pagination.js';
import { fieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { changedRows } from '../database/raw-query.js';
import { freeSlug, slugify } from '../common/slug.js';
import { sqlDatetime } from '../database/timestamps.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { CategoryDirectory } from '../categories/category-directory.js';
import { EventBus } from '../events/event-bus.js';
import { UploadHolds } from '../upload/upload-holds.js';
import { toCents } from '../common/money.js';
import { DEFAULT_TAX_CLASS } from '../common/tax-class.js';
import { fromMinor, toMinor } from '../pricing/calculator.js';
import { calculatedPrice, currencyAmountsOf } from '../pricing/currency-prices.js';
import { type PriceKey, PriceListPrices } from '../price-lists/price-list-prices.js';
import { RegionDirectory, type RegionInfo } from '../regions/region-directory.js';
import { writtenPrices } from './product-prices.js';
import {
  CreateProductDto,
  type ProductImageInputDto,
  type ProductFacet,
  ProductListQueryDto,
  ProductListSort,
  ProductResponseDto,
  UpdateProductDto,
} from './dto/product.dto.js';
import type { ProductDetailResponseDto } from './dto/variant.dto.js';
import {
  InsufficientStockException,
  ProductCatalog,
  type ReservedLine,
  type StockRequest,
} from './product-catalog.js';
import { readProductDetail } from './product-detail.js';
import { ProductVariants } from './product-variants.service.js';
import { Product } from './product.entity.js';
import {
  PRODUCT_SEARCH,
  ProductListFilter,
  type ProductSearch,
  searchWordsProblem,
} from './product-list.query.js';
import { ProductListTotals } from './product-list-totals.js';
import { searchQueryWords, writeProductWords } from './product-words.js';
import { DELETE_OPTION_VALUES, optionFilters } from './product-option-values.js';
import {
  ACTIVE_PRODUCT_BY_ID,
  DELETE_IMAGES,
  GIVE_STOCK_BACK,
  HAS_ACTIVE_VARIANTS,
  imagesFromRows,
  INSERT_IMAGE,
  namesAndPricesOf,
  PRODUCT_BY_ID,
  type ProductImageRow,
  RELEASE_SLUG,
  SET_IMAGE,
  SLUGS_LIKE,
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

/** What an order line keeps of a product or a variant (namesAndPricesOf, variantSnapshotsOf). */
interface SnapshotRow {
  id: number;
  name: string;
  price_cents: number;
  prices: string | null;
  tax_class: string;
}

/** A product's images as written: the upload path and its alt, in position order. */
type ImageInput = Required<ProductImageInputDto>;

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
    @Inject(PRODUCT_SEARCH) private readonly listQuery: ProductSearch,
    private readonly totals: ProductListTotals,
    private readonly variants: ProductVariants,
    private readonly events: EventBus,
    private readonly categories: CategoryDirectory,
    private readonly regions: RegionDirectory,
    private readonly priceLists: PriceListPrices,
  ) {}

  async create(dto: CreateProductDto): Promise<ProductDetailResponseDto> {
    const images = imageInputs(dto.images ?? []);
    const prices =
      dto.prices === undefined
        ? undefined
        : writtenPrices(dto.prices, this.config.payments.currency, dto.price);
    const product = this.products.create({
      name: dto.name,
      description: dto.description ?? '',
      priceCents: toCents(dto.price),
      prices: prices?.others ?? null,
      taxClass: dto.tax_class ?? DEFAULT_TAX_CLASS,
      stock: dto.stock ?? 0,
      categoryId: dto.category_id,
      image: images[0]?.url ?? '',
      isActive: true,
    });
    try {
      return await this.transactions.run('create product', async (manager) => {
        await this.holdImages(manager, images);
        if (dto.slug === undefined) {
          // The catalogue's generation row first: concurrent creates then choose their slugs one after the
          // other, each seeing the ones committed before (uploads are locked before it by every product write).
          await ProductListTotals.catalogChanged(manager);
          product.slug = await this.freeSlugFor(manager, slugify(dto.name, 'product'));
        } else {
          product.slug = dto.slug;
        }
        await this.categories.ensureForProduct(manager, dto.category_id);
        await manager.insert(Product, product);
        await this.insertImages(manager, product.id, images);
        if (dto.options !== undefined && dto.options.length > 0) {
          await this.variants.setOptions(manager, product.id, dto.options);
        }
        if (dto.slug !== undefined) await ProductListTotals.catalogChanged(manager);
        await writeProductWords(manager, product.id);
        const created = await this.read(product.id, true, manager);
        await this.events.publish(manager, 'product.created', created);
        return created;
      });
    } catch (error) {
      if (isUniqueViolation(error) && dto.slug !== undefined) throw slugTaken(dto.slug);
      throw error;
    }
  }

  /** `base`, or with the first numeric suffix no product has (deleted products have given theirs up). */
  private async freeSlugFor(manager: Tx, base: string): Promise<string> {
    const rows: Array<{ slug: string }> = await manager.query(SLUGS_LIKE, [base, `${base}-%`]);
    return freeSlug(
      base,
      rows.map((row) => row.slug),
    );
  }

  /**
   * Checks every image's file inside the product write's transaction, in path order (concurrent writes lock the
   * upload rows in the same order), so that none can be removed before the write commits.
   */
  private async holdImages(manager: Tx, images: ImageInput[], field = 'images'): Promise<void> {
    const order = images.map((image, index) => ({ path: image.url, index }));
    order.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    for (const { path, index } of order) {
      if (!(await this.uploads.holdForProduct(manager, path))) {
        const name = field === 'image' ? 'image' : `images.${index}.url`;
        throw fieldError(
          name,
          'uploadedFile',
          `${name} must be the filename of a file uploaded through /upload`,
        );
      }
    }
  }

  private async insertImages(manager: Tx, productId: number, images: ImageInput[]): Promise<void> {
    for (const [position, image] of images.entries()) {
      await changedRows(manager, INSERT_IMAGE, [productId, image.url, image.alt, position]);
    }
  }

  /** Replaces the product's images and sets `image` to the first one's path. */
  private async writeImages(manager: Tx, productId: number, images: ImageInput[]): Promise<void> {
    await changedRows(manager, DELETE_IMAGES, [productId]);
    await this.insertImages(manager, productId, images);
    await changedRows(manager, SET_IMAGE, [images[0]?.url ?? '', productId]);
  }

  async list(
    query: ProductListQueryDto,
    actor: AuthUser | undefined,
  ): Promise<Paginated<ProductResponseDto>> {
    const ids = query.ids === undefined ? undefined : this.batchIds(query.ids);
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    if (ids !== undefined && query.cursor !== undefined) {
      throw fieldError('cursor', 'cursorIds', 'cursor is not available with ids: the batch is one page');
    }
    const isAdmin = actor?.role === 'admin';
    if (query.is_active !== undefined && !isAdmin) {
      throw new ForbiddenException('Only an admin may filter by is_active');
    }
    const minPrice = priceBound(query, 'min_price', 'price_min', 'sameAsMinPrice');
    const maxPrice = priceBound(query, 'max_price', 'price_max', 'sameAsMaxPrice');
    if (minPrice !== undefined && maxPrice !== undefined && minPrice.value > maxPrice.value) {
      throw fieldError(
        minPrice.field,
        'notAboveMaxPrice',
        `${minPrice.field} must not be greater than ${maxPrice.field}`,
      );
    }
    const options = optionFilters(query.option);
    if (query.include_descendants !== undefined && query.category_id === undefined) {
      throw fieldError('include_descendants', 'needsCategory', 'include_descendants needs a category_id');
    }
    const searching = query.search !== undefined && query.search.trim() !== '';
    const sort = query.sort ?? (searching && ids === undefined ? 'relevance' : 'id');
    if (sort === 'relevance' && !searching) {
      throw fieldError('sort', 'relevanceNeedsSearch', 'sort=relevance needs a search');
    }
    if (query.cursor !== undefined && sort === 'relevance') {
      throw fieldError('cursor', 'cursorSort', 'cursor is not available with sort=relevance; use page');
    }
    const after =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort, CURSOR_VALUE[sort]);
    const words = searching ? searchQueryWords(query.search as string) : undefined;
    const problem = words === undefined ? null : searchWordsProblem(words);
    if (problem !== null) throw fieldError('search', problem.rule, problem.message);
    const region = await this.regionOf(query.region_id);
    const filter: ProductListFilter = {
      active: isAdmin ? query.is_active : true,
      categoryId: query.category_id,
      includeDescendants: query.include_descendants === true ? true : undefined,
      minCents: minPrice === undefined ? undefined : toCents(minPrice.value),
      maxCents: maxPrice === undefined ? undefined : toCents(maxPrice.value),
      inStock: query.in_stock,
      maxStock: query.max_stock,
      searchWords: words,
      slug: query.slug,
      ids,
      options,
    };
    const facets =
      query.facets === undefined ? undefined : ([...new Set(query.facets.split(','))] as ProductFacet[]);
    const { totalLimit } = this.config.search;
    if (searching && after === undefined && ids === undefined && skip >= totalLimit) {
      // Past the window only the capped count is read: a page after every match is the empty page it always
      // was; one that would need matches past the limit is refused. (A count stopped at its budget of postings
      // cannot tell: the window is counted in full.)
      let counted = await this.totals.total(filter);
      if (counted.lowerBound) counted = await this.listQuery.count(filter, { budgeted: false });
      if (counted.total <= totalLimit) {
        return this.withFacets(new Paginated([], counted.total, page, pageSize, null, true), filter, facets);
      }
      const lastPage = Math.ceil(totalLimit / pageSize);
      throw fieldError(
        'page',
        'searchWindow',
        `page must be at most ${lastPage} with page_size ${pageSize}: a search pages through its first ` +
          `${totalLimit} matches by page; use cursor with a sort other than relevance to go further`,
      );
    }
    if (ids !== undefined) {
      const { products } = await this.listQuery.page(filter, { sort, limit: ids.length, offset: 0 });
      if (query.sort === undefined) {
        const rank = new Map(ids.map((id, index) => [id, index]));
        products.sort((a, b) => (rank.get(a.id) as number) - (rank.get(b.id) as number));
      }
      await this.withCalculatedPrices(productsPriced(products), region, actor);
      const batch = new Paginated(
        products,
        products.length,
        1,
        ids.length,
        null,
        searching ? true : undefined,
      );
      return this.withFacets(batch, filter, facets);
    }
    const offset = after === undefined ? skip : 0;
    const { products, last } = await this.listQuery.page(filter, { sort, limit: pageSize, offset, after });
    // The count is needed only when it cannot be told from the page: more follow, or a page past the end. A
    // search's count stops past SEARCH_TOTAL_LIMIT, or at its budget of postings (a lower bound): its total is
    // then not exact.
    const counted =
      after !== undefined || last !== null || (products.length === 0 && offset > 0)
        ? await this.totals.total(filter)
        : { total: offset + products.length, lowerBound: false };
    // A lower bound is at least what this page has seen.
    const seen = offset + products.length + (last === null ? 0 : 1);
    const total = !searching
      ? counted.total
      : counted.lowerBound
        ? Math.min(Math.max(counted.total, seen), totalLimit)
        : Math.min(counted.total, totalLimit);
    const nextCursor = last === null || sort === 'relevance' ? null : encodeCursor(sort, last);
    const exact = searching ? counted.total <= totalLimit && !counted.lowerBound : undefined;
    await this.withCalculatedPrices(productsPriced(products), region, actor);
    const listed = new Paginated(
      products,
      total,
      after === undefined ? page : null,
      pageSize,
      nextCursor,
      exact,
    );
    return this.withFacets(listed, filter, facets);
  }

  /** The page with `meta.facets` and `meta.facets_exact` when facets are asked (the page as it is otherwise). */
  private async withFacets<T>(
    page: Paginated<T>,
    filter: ProductListFilter,
    facets: ProductFacet[] | undefined,
  ): Promise<Paginated<T>> {
    if (facets === undefined) return page;
    const counted = await this.totals.facets(filter, facets);
    page.meta.facets = counted.facets;
    page.meta.facets_exact = counted.exact;
    return page;
  }

  /** The ids of `?ids=`, repeats dropped, in the order asked: at most PAGE_SIZE_MAX, each a valid id. */
  private batchIds(text: string): number[] {
    const ids = [...new Set(text.split(',').map(Number))];
    if (ids.some((id) => id < 1 || id > 2_147_483_647)) {
      throw fieldError('ids', 'isId', 'ids must be integers from 1 to 2147483647');
    }
    if (ids.length > this.config.pageSizeMax) {
      throw fieldError('ids', 'maxItems', `ids must name at most ${this.config.pageSizeMax} products`);
    }
    return ids;
  }

  /**
   * A product by id, or by slug (a non-numeric path segment); with `regionId`, with the caller's
   * `calculated_price` there (its variants' too).
   */
  async get(
    key: number | string,
    actor: AuthUser | undefined,
    regionId?: number,
  ): Promise<ProductDetailResponseDto> {
    const region = await this.regionOf(regionId);
    const product = await this.read(key, actor?.role === 'admin');
    await this.withCalculatedPrices(
      [
        ...productsPriced([product]),
        ...product.variants.map((variant) => ({
          item: variant,
          key: { productId: product.id, variantId: variant.id },
        })),
      ],
      region,
      actor,
    );
    return product;
  }

  /**
   * Adds the caller's `calculated_price` in the region to each product or variant of a read: its own price there,
   * or the applicable price lists' (one statement for the page). Nothing, and no statement, without a region.
   */
  private async withCalculatedPrices(
    priced: Array<{ item: Pick<ProductResponseDto, 'prices' | 'calculated_price'>; key: PriceKey }>,
    region: RegionInfo | undefined,
    actor: AuthUser | undefined,
  ): Promise<void> {
    if (region === undefined) return;
    const currency = region.currencyCode;
    const lists = await this.priceLists.pricesFor(this.products.manager, {
      currency,
      customerId: actor?.id ?? null,
      at: new Date(),
      keys: priced.map(({ key }) => key),
    });
    for (const { item, key } of priced) {
      const own = calculatedPrice(item.prices, region);
      const listed = own === null ? null : lists.of(key, toMinor(own.amount, currency));
      item.calculated_price =
        own === null || listed === null
          ? own
          : { ...own, amount: fromMinor(listed.price, currency), price_list_id: listed.priceListId };
    }
  }

  /** The region of a read's `region_id` (one statement per request); 400 `region_id` rule `exists` for none. */
  private async regionOf(regionId: number | undefined): Promise<RegionInfo | undefined> {
    if (regionId === undefined) return undefined;
    const region = await this.regions.find(this.products.manager, regionId);
    if (region === null) throw fieldError('region_id', 'exists', `region_id ${regionId} is not a region`);
    return region;
  }

  /**
   * `images` replaces the list (and `image` then must be its first url); `image` alone replaces the first image
   * ("" removes it). Either way `image` ends up the first image's path.
   */
  async update(id: number, dto: UpdateProductDto): Promise<ProductDetailResponseDto> {
    const images = dto.images === undefined ? undefined : imageInputs(dto.images);
    if (images !== undefined && dto.image !== undefined && dto.image !== (images[0]?.url ?? '')) {
      throw fieldError('image', 'firstImage', 'image must be the url of the first of images ("" with none)');
    }
    const prices =
      dto.prices === undefined
        ? undefined
        : writtenPrices(dto.prices, this.config.payments.currency, dto.price);
    const changes: Partial<Product> = {
      name: dto.name,
      description: dto.description,
      priceCents: dto.price === undefined ? prices?.defaultAmount : toCents(dto.price),
      // `prices` replaces the other currencies' (none left: NULL).
      prices: prices?.others,
      taxClass: dto.tax_class,
      stock: dto.stock,
      categoryId: dto.category_id,
      slug: dto.slug,
      isActive: dto.is_active,
    };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    // One transaction with the check of the images, so that no file can be removed in between.
    try {
      return await this.transactions.run('update product', async (manager) => {
        if (images !== undefined) await this.holdImages(manager, images);
        else if (dto.image !== undefined && dto.image !== '') {
          await this.holdImages(manager, [{ url: dto.image, alt: '' }], 'image');
        }
        // The row locked first, so that the event's product detail is read after any concurrent change of it;
        // the stock before tells whether this change brings the product back in stock.
        const stockBefore = await this.lockedStock(manager, id);
        if (dto.category_id !== undefined) await this.categories.ensureForProduct(manager, dto.category_id);
        const result = await manager.update(
          Product,
          { id, deletedAt: IsNull() },
          { ...defined, updatedAt: new Date() },
        );
        // The row is locked from here on (MySQL): a variant change of this product waits for this transaction.
        if (result.affected === 0) throw new NotFoundException(`Product ${id} not found`);
        const derived = (['price', 'prices', 'stock'] as const).filter((field) => dto[field] !== undefined);
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
        if (images !== undefined) await this.writeImages(manager, id, images);
        else if (dto.image !== undefined) {
          const current = await this.imagesOf(manager, id);
          const rest = current.slice(1).filter((image) => image.url !== dto.image);
          const first = dto.image === '' ? [] : [{ url: dto.image, alt: '' }];
          await this.writeImages(manager, id, [...first, ...rest]);
        }
        await ProductListTotals.catalogChanged(manager);
        if (dto.name !== undefined || dto.description !== undefined || dto.is_active !== undefined) {
          await writeProductWords(manager, id);
        }
        const updated = await this.read(id, true, manager);
        await this.events.publish(manager, 'product.updated', updated);
        if (stockBefore === 0 && updated.stock > 0) {
          await this.events.publish(manager, 'product.back_in_stock', updated);
        }
        return updated;
      });
    } catch (error) {
      if (isUniqueViolation(error) && dto.slug !== undefined) throw slugTaken(dto.slug);
      throw error;
    }
  }

  private async imagesOf(manager: Tx, id: number): Promise<ImageInput[]> {
    const rows: ProductImageRow[] = await manager.query(PRODUCT_BY_ID, [id]);
    return imagesFromRows(rows).map(({ url, alt }) => ({ url, alt }));
  }

  async remove(id: number): Promise<void> {
    await this.transactions.run('delete product', async (manager) => {
      // Locked first, so that the product read is the one deleted (no variant write in between).
      await this.lockedStock(manager, id);
      const product = await this.read(id, true, manager);
      const now = new Date();
      const deleted = await manager.update(
        Product,
        { id, deletedAt: IsNull() },
        // Dates given: softDelete() writes CURRENT_TIMESTAMP, which has whole seconds on SQLite.
        { deletedAt: now, updatedAt: now },
      );
      if (deleted.affected === 0) throw new NotFoundException(`Product ${id} not found`);
      await changedRows(manager, RELEASE_SLUG, [id]);
      await manager.query(DELETE_OPTION_VALUES, [id]);
      await ProductListTotals.catalogChanged(manager);
      await writeProductWords(manager, id);
      await this.events.publish(manager, 'product.deleted', product);
    });
  }

  async assertVisible(productId: number, actor: AuthUser | undefined): Promise<void> {
    const rows: unknown[] = await this.products.query(
      actor?.role === 'admin' ? PRODUCT_BY_ID : ACTIVE_PRODUCT_BY_ID,
      [productId],
    );
    if (rows.length === 0) throw new NotFoundException(`Product ${productId} not found`);
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
    const products: SnapshotRow[] =
      productIds.length === 0 ? [] : await tx.query(namesAndPricesOf(productIds.length), productIds);
    const variantIds = [...productOf.keys()];
    const variants: Array<SnapshotRow & { sku: string; title: string }> =
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
        prices: currencyAmountsOf(row.prices),
        taxClass: row.tax_class,
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
    // What each product's own stock (its derived stock for variants) got back: none for a product whose
    // stock is its variants' now, nor for an inactive or deleted variant's share.
    const given = new Map<number, number>();
    for (const { productId, variantId, quantity } of lockOrder) {
      const id = productId!;
      const changed =
        variantId == null
          ? await changedRows(tx, GIVE_STOCK_BACK, [quantity, now, id])
          : await changedRows(tx, GIVE_STOCK_BACK_FOR_VARIANT, [quantity, now, id, variantId]);
      if (variantId != null) await changedRows(tx, GIVE_VARIANT_STOCK_BACK, [quantity, now, variantId]);
      if (changed > 0) given.set(id, (given.get(id) ?? 0) + quantity);
    }
    // Read after the updates, under their row locks: a stock equal to what was given back was 0 before.
    for (const [id, quantity] of given) {
      const [row]: Array<{ stock: number }> = await tx.query(STOCK_STATE, [id]);
      if (row === undefined || Number(row.stock) !== quantity) continue;
      const product = await this.read(id, true, tx);
      await this.events.publish(tx, 'product.back_in_stock', product);
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

  async missing(
    manager: EntityManager,
    kind: 'product' | 'variant',
    ids: readonly number[],
  ): Promise<number[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const table = kind === 'product' ? 'products' : 'product_variants';
    const rows: Array<{ id: number | string }> = await manager.query(
      `SELECT id FROM ${table} WHERE deleted_at IS NULL AND id IN (${wanted.map(() => '?').join(', ')})`,
      wanted,
    );
    const found = new Set(rows.map((row) => Number(row.id)));
    return wanted.filter((id) => !found.has(id));
  }

  /** The product as its detail shows it (the active variants only unless `includeInactive`); 404 when none. */
  private async read(
    key: number | string,
    includeInactive: boolean,
    manager: Tx = this.products.manager,
  ): Promise<ProductDetailResponseDto> {
    const product = await readProductDetail(manager, key, includeInactive, this.config.payments.currency);
    if (product === null) throw new NotFoundException(`Product ${key} not found`);
    return product;
  }
}

/** The images of a request with their alt defaulted; 400 naming the second of two images of one file. */
function imageInputs(images: ProductImageInputDto[]): ImageInput[] {
  const seen = new Set<string>();
  return images.map((image, index) => {
    if (seen.has(image.url)) {
      throw fieldError(
        `images.${index}.url`,
        'unique',
        `images.${index}.url is already an image of the product`,
      );
    }
    seen.add(image.url);
    return { url: image.url, alt: image.alt ?? '' };
  });
}

/** Products of a read with their price-list keys (a product's own price: no variant). */
function productsPriced<T extends { id: number }>(products: T[]): Array<{ item: T; key: PriceKey }> {
  return products.map((item) => ({ item, key: { productId: item.id, variantId: null } }));
}

/**
 * A price bound of the list, given by its name (`min_price`) or its alias (`price_min`), with the field it came
 * by; both given and different is a 400 naming the alias.
 */
function priceBound(
  query: ProductListQueryDto,
  name: 'min_price' | 'max_price',
  alias: 'price_min' | 'price_max',
  rule: string,
): { value: number; field: string } | undefined {
  const [value, aliased] = [query[name], query[alias]];
  if (value !== undefined && aliased !== undefined && value !== aliased) {
    throw fieldError(
      alias,
      rule,
      `${alias} and ${name} are the same bound: give one of them, or the same value`,
    );
  }
  if (aliased !== undefined) return { value: aliased, field: alias };
  return value === undefined ? undefined : { value, field: name };
}

function slugTaken(slug: string): ValidationFailedException {
  return fieldError('slug', 'unique', `slug ${slug} is taken by another product`);
}
