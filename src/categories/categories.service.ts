import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { pageWindow } from '../common/pagination.js';
import { slugify } from '../common/slug.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation, throwUniqueViolationAs400 } from '../database/errors.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import { CategoryDirectory } from './category-directory.js';
import { Category } from './category.entity.js';
import {
  CategoryListQueryDto,
  CategoryResponseDto,
  CreateCategoryDto,
  toCategoryResponse,
  UpdateCategoryDto,
} from './dto/category.dto.js';

/** Longest generated slug before its suffix, so that `-N` still fits the 120 characters. */
const SLUG_BASE_MAX = 100;
/** Suffixes tried after the first free one was taken by a concurrent write. */
const SLUG_ATTEMPTS = 10;
/**
 * Highest id a placeholder is made for: above it a product's unknown category_id is refused, so that a stray
 * id near the column's limit (2147483647) cannot leave categories no room for their next auto-increment id.
 */
export const PLACEHOLDER_ID_MAX = 1_000_000_000;
/** The deepest a parent chain is followed; deeper trees are refused as if they were a cycle. */
const MAX_DEPTH = 100;

@Injectable()
export class CategoriesService implements CategoryDirectory {
  constructor(
    @InjectRepository(Category) private readonly categories: Repository<Category>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly events: EventBus,
  ) {}

  async list(
    query: CategoryListQueryDto,
    actor: AuthUser | undefined,
  ): Promise<Paginated<CategoryResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const select = this.categories.createQueryBuilder('c');
    if (actor?.role !== 'admin') select.andWhere('c.is_active = 1');
    if (query.parent_id === 0) select.andWhere('c.parent_id IS NULL');
    else if (query.parent_id !== undefined)
      select.andWhere('c.parent_id = :parent', { parent: query.parent_id });
    if (query.slug !== undefined) select.andWhere('c.live_slug = :slug', { slug: query.slug });
    const [rows, total] = await select
      .orderBy('c.position', 'ASC')
      .addOrderBy('c.id', 'ASC')
      .offset(skip)
      .limit(pageSize)
      .getManyAndCount();
    return new Paginated(rows.map(toCategoryResponse), total, page, pageSize);
  }

  async get(id: number, actor: AuthUser | undefined): Promise<CategoryResponseDto> {
    const category = await this.categories.findOneBy({ id });
    if (category === null || (!category.isActive && actor?.role !== 'admin')) {
      throw new NotFoundException(`Category ${id} not found`);
    }
    return toCategoryResponse(category);
  }

  async create(dto: CreateCategoryDto): Promise<CategoryResponseDto> {
    return this.transactions.run('create category', async (tx) => {
      if (dto.parent_id !== undefined && dto.parent_id !== null) await this.lockParent(tx, dto.parent_id);
      const id = await this.insert(
        tx,
        {
          name: dto.name,
          parentId: dto.parent_id ?? null,
          description: dto.description ?? '',
          position: dto.position ?? 0,
          isActive: dto.is_active ?? true,
        },
        dto.slug,
      );
      const created = toCategoryResponse(await this.findOrFail(tx, id as number));
      await this.events.publish(tx, 'category.created', created);
      return created;
    });
  }

  async update(id: number, dto: UpdateCategoryDto): Promise<CategoryResponseDto> {
    const changes: Partial<Category> = {
      name: dto.name,
      slug: dto.slug,
      liveSlug: dto.slug,
      parentId: dto.parent_id,
      description: dto.description,
      position: dto.position,
      isActive: dto.is_active,
    };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    return this.transactions.run('update category', async (tx) => {
      await this.lockCategory(tx, id);
      if (dto.parent_id !== undefined && dto.parent_id !== null)
        await this.assertNoCycle(tx, id, dto.parent_id);
      try {
        await tx.update(Category, { id }, { ...defined, updatedAt: new Date() });
      } catch (error) {
        throwUniqueViolationAs400(error, 'slug', 'slug is already taken by another category');
      }
      const updated = toCategoryResponse(await this.findOrFail(tx, id));
      await this.events.publish(tx, 'category.updated', updated);
      return updated;
    });
  }

  /** Soft delete: refused while it has subcategories; its products keep their category_id. */
  async remove(id: number): Promise<void> {
    await this.transactions.run('delete category', async (tx) => {
      await this.lockCategory(tx, id);
      const category = toCategoryResponse(await this.findOrFail(tx, id));
      const [child]: unknown[] = await tx.query(
        'SELECT id FROM categories WHERE parent_id = ? AND deleted_at IS NULL LIMIT 1',
        [id],
      );
      if (child !== undefined) {
        throw fieldError(
          'id',
          'hasSubcategories',
          `Category ${id} has subcategories: move or delete them first`,
        );
      }
      const now = new Date();
      await tx.update(Category, { id }, { deletedAt: now, liveSlug: null, updatedAt: now });
      await this.events.publish(tx, 'category.deleted', category);
    });
  }

  async ensureForProduct(tx: Tx, id: number): Promise<void> {
    if (await this.exists(tx, id, false)) return;
    if (this.config.categoriesStrict || id > PLACEHOLDER_ID_MAX) {
      throw fieldError('category_id', 'categoryExists', `category_id ${id} is not a category`);
    }
    const inserted = await this.insert(
      tx,
      { id, name: `Category ${id}`, parentId: null, description: '', position: 0, isActive: true },
      undefined,
      `category-${id}`,
    );
    if (inserted === null) return; // a concurrent transaction created it
    await this.events.publish(tx, 'category.created', toCategoryResponse(await this.findOrFail(tx, id)));
  }

  /**
   * Inserts the category with the given slug (400 `slug`/`unique` when taken) or else the first free one of
   * `base`, `base-2`, `base-3`… (base: the name's slug). The unique index decides races: a generated slug taken
   * meanwhile moves on to the next suffix. Gives the new id, or null when `row.id` was given and a concurrent
   * transaction inserted that id first.
   */
  private async insert(
    tx: Tx,
    row: Partial<Category>,
    given: string | undefined,
    base = slugify(row.name ?? '', 'category', { maxLength: SLUG_BASE_MAX, letterRequired: false }),
  ): Promise<number | null> {
    if (given !== undefined) {
      try {
        const result = await tx.insert(Category, { ...row, slug: given, liveSlug: given });
        return Number(result.identifiers[0].id);
      } catch (error) {
        throwUniqueViolationAs400(error, 'slug', 'slug is already taken by another category');
      }
    }
    const taken = new Set(
      (
        (await tx.query('SELECT live_slug AS slug FROM categories WHERE live_slug = ? OR live_slug LIKE ?', [
          base,
          `${base}-%`,
        ])) as Array<{ slug: string }>
      ).map((taken) => taken.slug.toLowerCase()),
    );
    let suffix = 1;
    while (taken.has(suffix === 1 ? base : `${base}-${suffix}`)) suffix++;
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++, suffix++) {
      const slug = suffix === 1 ? base : `${base}-${suffix}`;
      try {
        const result = await tx.insert(Category, { ...row, slug, liveSlug: slug });
        return Number(result.identifiers[0].id);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The same id inserted meanwhile by another transaction, whose commit ended this insert's wait.
        if (row.id !== undefined && (await this.exists(tx, row.id, true))) return null;
      }
    }
    throw new Error(`No free slug for category ${row.name} after ${SLUG_ATTEMPTS} attempts`);
  }

  private async exists(tx: Tx, id: number, locking: boolean): Promise<boolean> {
    const lock = locking && tx.connection.options.type === 'mysql' ? ' LOCK IN SHARE MODE' : '';
    const rows: unknown[] = await tx.query(`SELECT id FROM categories WHERE id = ?${lock}`, [id]);
    return rows.length > 0;
  }

  /** The live category's row locked until commit (MySQL); 404 when there is none. */
  private async lockCategory(tx: Tx, id: number): Promise<void> {
    if ((await this.lockedParentOf(tx, id)) === undefined)
      throw new NotFoundException(`Category ${id} not found`);
  }

  /** Locks a new parent (so that it cannot be deleted meanwhile); 400 naming parent_id when it is not live. */
  private async lockParent(tx: Tx, parentId: number): Promise<void> {
    if ((await this.lockedParentOf(tx, parentId)) === undefined) {
      throw fieldError('parent_id', 'categoryExists', `parent_id ${parentId} is not a category`);
    }
  }

  /**
   * Refuses a parent that is the category itself or below it, following the parent chain up from the new
   * parent with each row locked (MySQL): two moves that would close a loop together wait for each other, and
   * the second sees the first.
   */
  private async assertNoCycle(tx: Tx, id: number, parentId: number): Promise<void> {
    await this.lockParent(tx, parentId);
    let current: number | null = parentId;
    for (let depth = 0; current !== null; depth++) {
      if (current === id || depth >= MAX_DEPTH) {
        throw fieldError(
          'parent_id',
          'noCycle',
          'parent_id must not be the category itself or one of its subcategories',
        );
      }
      current = (await this.lockedParentOf(tx, current)) ?? null;
    }
  }

  /** parent_id of the live category `id` (null for a top-level one), its row locked; undefined if none. */
  private async lockedParentOf(tx: Tx, id: number): Promise<number | null | undefined> {
    const lock = tx.connection.options.type === 'mysql' ? ' FOR UPDATE' : '';
    const [row]: Array<{ parent_id: number | string | null }> = await tx.query(
      `SELECT parent_id FROM categories WHERE id = ? AND deleted_at IS NULL${lock}`,
      [id],
    );
    if (row === undefined) return undefined;
    return row.parent_id === null ? null : Number(row.parent_id);
  }

  private async findOrFail(tx: Tx, id: number): Promise<Category> {
    const category = await tx.findOneBy(Category, { id });
    if (category === null) throw new NotFoundException(`Category ${id} not found`);
    return category;
  }
}
