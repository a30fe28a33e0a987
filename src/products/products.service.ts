import { ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { containsPattern, LIKE_ESCAPE, pageWindow } from '../common/pagination.js';
import { fieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { UploadService } from '../upload/upload.service.js';
import {
  CreateProductDto,
  ProductListQueryDto,
  ProductResponseDto,
  toCents,
  toProductResponse,
  UpdateProductDto,
} from './dto/product.dto.js';
import { Product } from './product.entity.js';

const SORT_COLUMNS = {
  id: 'id',
  price: 'priceCents',
  name: 'name',
  created_at: 'createdAt',
} as const;

/** A product has less stock than an order asks for (a 400 like the other refusals, counted apart). */
export class InsufficientStockException extends ValidationFailedException {
  constructor(message: string) {
    super([{ field: 'items', rule: 'stock', message }]);
  }
}

export interface StockRequest {
  productId: number;
  quantity: number;
}

/** What an order keeps of a product at the moment it took the stock. */
export interface ReservedProduct {
  id: number;
  name: string;
  priceCents: number;
}

@Injectable()
export class ProductsService {
  constructor(
    @InjectRepository(Product) private readonly products: Repository<Product>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly uploads: UploadService,
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
    await this.transactions.run('create product', (manager) => manager.insert(Product, product));
    return toProductResponse(await this.findOrFail(product.id, true));
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

    const qb = this.products.createQueryBuilder('p');
    const activeFilter = isAdmin ? query.is_active : true;
    if (activeFilter !== undefined) qb.andWhere('p.isActive = :active', { active: activeFilter });
    if (query.category_id !== undefined)
      qb.andWhere('p.categoryId = :category', { category: query.category_id });
    if (query.min_price !== undefined) qb.andWhere('p.priceCents >= :min', { min: toCents(query.min_price) });
    if (query.max_price !== undefined) qb.andWhere('p.priceCents <= :max', { max: toCents(query.max_price) });
    if (query.in_stock !== undefined) qb.andWhere(query.in_stock ? 'p.stock > 0' : 'p.stock = 0');
    if (query.search !== undefined && query.search !== '') {
      qb.andWhere(
        `(p.name LIKE :pattern ESCAPE '${LIKE_ESCAPE}' OR p.description LIKE :pattern ESCAPE '${LIKE_ESCAPE}')`,
        {
          pattern: containsPattern(query.search),
        },
      );
    }

    const sort = query.sort ?? 'id';
    const descending = sort.startsWith('-');
    const field = (descending ? sort.slice(1) : sort) as keyof typeof SORT_COLUMNS;
    const direction = descending ? 'DESC' : 'ASC';
    const ordered = <T extends ObjectLiteral>(builder: SelectQueryBuilder<T>, alias: string) => {
      builder.orderBy(`${alias}.${SORT_COLUMNS[field]}`, direction);
      if (field !== 'id') builder.addOrderBy(`${alias}.id`, direction);
      return builder;
    };

    // Deferred join: the page's ids are found (and the offset skipped) in the index alone, then only those
    // rows are read. Selecting whole rows with OFFSET would read every skipped row (docs/benchmarks.md).
    const pageIds = ordered(qb.clone().select('p.id', 'id'), 'p').offset(skip).limit(pageSize);
    const products = await ordered(
      this.products
        .createQueryBuilder('product')
        .innerJoin(`(${pageIds.getQuery()})`, 'page', 'page.id = product.id')
        .setParameters(pageIds.getParameters()),
      'product',
    ).getMany();
    // The count is needed only when this page is full, or empty past the first page.
    const total =
      products.length === pageSize || (products.length === 0 && skip > 0)
        ? await qb.getCount()
        : skip + products.length;
    return new Paginated(products.map(toProductResponse), total, page, pageSize);
  }

  async get(id: number, actor: AuthUser | undefined): Promise<ProductResponseDto> {
    return toProductResponse(await this.findOrFail(id, actor?.role === 'admin'));
  }

  async update(id: number, dto: UpdateProductDto): Promise<ProductResponseDto> {
    if (dto.image !== undefined && dto.image !== '' && !(await this.uploads.isStoredFile(dto.image))) {
      throw fieldError(
        'image',
        'uploadedFile',
        'image must be the filename of a file uploaded through /upload',
      );
    }
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
    const result = await this.products.update(
      { id, deletedAt: IsNull() },
      { ...defined, updatedAt: new Date() },
    );
    if (result.affected === 0) throw new NotFoundException(`Product ${id} not found`);
    return toProductResponse(await this.findOrFail(id, true));
  }

  async remove(id: number): Promise<void> {
    const result = await this.transactions.run('delete product', (manager) =>
      manager.softDelete(Product, { id, deletedAt: IsNull() }),
    );
    if (result.affected === 0) throw new NotFoundException(`Product ${id} not found`);
  }

  /**
   * Takes stock for an order inside the caller's transaction, one conditional UPDATE per product in
   * ascending id order (so concurrent orders lock rows in the same order). Throws 400 naming the
   * first product that is missing, inactive or short, and the caller's transaction rolls back.
   */
  async reserveStock(
    manager: EntityManager,
    requests: StockRequest[],
  ): Promise<Map<number, ReservedProduct>> {
    const sorted = [...requests].sort((a, b) => a.productId - b.productId);
    const now = new Date();
    for (const { productId, quantity } of sorted) {
      const result = await manager
        .createQueryBuilder()
        .update(Product)
        .set({ stock: () => 'stock - :quantity', updatedAt: now })
        // `is_active IS TRUE` rather than `= true`: with `=`, MariaDB reaches the row through the
        // (is_active, deleted_at) index instead of the primary key (EXPLAIN in docs/benchmarks.md).
        .where('id = :productId AND stock >= :quantity AND is_active IS TRUE AND deleted_at IS NULL', {
          productId,
          quantity,
        })
        .execute();
      if (result.affected === 0) throw await this.whyNotReservable(manager, productId, quantity);
    }
    const rows = await manager.getRepository(Product).find({
      select: { id: true, name: true, priceCents: true },
      where: { id: In(sorted.map((r) => r.productId)) },
    });
    return new Map(rows.map((row) => [row.id, { id: row.id, name: row.name, priceCents: row.priceCents }]));
  }

  /** Gives stock back (a cancelled order) inside the caller's transaction, even to inactive or deleted products. */
  async releaseStock(manager: EntityManager, requests: StockRequest[]): Promise<void> {
    const sorted = [...requests].sort((a, b) => a.productId - b.productId);
    const now = new Date();
    for (const { productId, quantity } of sorted) {
      await manager
        .createQueryBuilder()
        .update(Product)
        .set({ stock: () => 'stock + :quantity', updatedAt: now })
        .where('id = :productId', { productId, quantity })
        .execute();
    }
  }

  private async whyNotReservable(
    manager: EntityManager,
    productId: number,
    quantity: number,
  ): Promise<ValidationFailedException> {
    const product = await manager.getRepository(Product).findOne({
      select: { id: true, stock: true, isActive: true },
      where: { id: productId },
    });
    if (product === null) return fieldError('items', 'productExists', `Product ${productId} not found`);
    if (!product.isActive) {
      return fieldError('items', 'productAvailable', `Product ${productId} is not available`);
    }
    return new InsufficientStockException(
      `Product ${productId} has insufficient stock: requested ${quantity}, available ${product.stock}`,
    );
  }

  private async findOrFail(id: number, includeInactive: boolean): Promise<Product> {
    const product = await this.products.findOneBy(includeInactive ? { id } : { id, isActive: true });
    if (product === null) throw new NotFoundException(`Product ${id} not found`);
    return product;
  }
}
