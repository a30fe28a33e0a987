import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { type PageQueryDto, pageWindow } from '../common/pagination.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isForeignKeyViolation } from '../database/errors.js';
import { dateFromRow } from '../database/timestamps.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { CustomerGroupDirectory } from './customer-group-directory.js';
import { CustomerGroup } from './customer-group.entity.js';
import type {
  CreateCustomerGroupDto,
  CustomerGroupMemberResponseDto,
  CustomerGroupResponseDto,
  UpdateCustomerGroupDto,
} from './dto/customer-group.dto.js';

const placeholders = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/**
 * Customer groups and their members. The users module shows a user's groups through the directory; this module
 * reads `users` only to refuse ids that name no account (importing the users module would make a cycle).
 */
@Injectable()
export class CustomerGroupsService extends CustomerGroupDirectory {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
  ) {
    super();
  }

  async groupsOf(manager: EntityManager, userId: number | null): Promise<number[]> {
    if (userId === null) return [];
    const rows = (await manager.query(
      'SELECT customer_group_id FROM customer_group_members WHERE user_id = ? ORDER BY customer_group_id',
      [userId],
    )) as Array<{ customer_group_id: number | string }>;
    return rows.map((row) => Number(row.customer_group_id));
  }

  async groupsOfEach(manager: EntityManager, userIds: readonly number[]): Promise<Map<number, number[]>> {
    const groups = new Map(userIds.map((id) => [id, [] as number[]]));
    if (userIds.length === 0) return groups;
    const rows = (await manager.query(
      `SELECT user_id, customer_group_id FROM customer_group_members WHERE user_id IN (${placeholders(userIds)}) ` +
        'ORDER BY customer_group_id',
      [...userIds],
    )) as Array<{ user_id: number | string; customer_group_id: number | string }>;
    for (const row of rows) groups.get(Number(row.user_id))?.push(Number(row.customer_group_id));
    return groups;
  }

  async missing(manager: EntityManager, ids: readonly number[]): Promise<number[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const rows = (await manager.query(
      `SELECT id FROM customer_groups WHERE id IN (${placeholders(wanted)})`,
      wanted,
    )) as Array<{ id: number | string }>;
    const found = new Set(rows.map((row) => Number(row.id)));
    return wanted.filter((id) => !found.has(id));
  }

  /** Id order, paged. */
  async list(query: PageQueryDto): Promise<Paginated<CustomerGroupResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const manager = this.dataSource.manager;
    const [groups, total] = await manager.findAndCount(CustomerGroup, {
      order: { id: 'ASC' },
      skip,
      take: pageSize,
    });
    return new Paginated(await withCounts(manager, groups), total, page, pageSize);
  }

  async get(id: number): Promise<CustomerGroupResponseDto> {
    return this.read(this.dataSource.manager, id);
  }

  async create(dto: CreateCustomerGroupDto): Promise<CustomerGroupResponseDto> {
    const now = new Date();
    const result = await this.dataSource.manager.insert(CustomerGroup, {
      name: dto.name,
      createdAt: now,
      updatedAt: now,
    });
    return this.read(this.dataSource.manager, Number(result.identifiers[0].id));
  }

  async update(id: number, dto: UpdateCustomerGroupDto): Promise<CustomerGroupResponseDto> {
    return this.transactions.run('update customer group', async (tx) => {
      await assertExists(tx, id);
      await tx.update(
        CustomerGroup,
        { id },
        { ...(dto.name === undefined ? {} : { name: dto.name }), updatedAt: new Date() },
      );
      return this.read(tx, id);
    });
  }

  /**
   * Refused (400 `id`, rule `inUse`) while a price list or a promotion is limited to the group: deleting it would
   * otherwise open them to everyone. Their foreign keys decide, so a concurrent write cannot slip past the check.
   */
  async remove(id: number): Promise<void> {
    try {
      await this.transactions.run('delete customer group', async (tx) => {
        await assertExists(tx, id);
        await tx.query('DELETE FROM customer_group_members WHERE customer_group_id = ?', [id]);
        await tx.delete(CustomerGroup, { id });
      });
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      throw fieldError(
        'id',
        'inUse',
        `customer group ${id} is used by a price list or a promotion: take it out of them first`,
      );
    }
  }

  /** The group's members by user id, paged: id, username and e-mail of each account. */
  async members(id: number, query: PageQueryDto): Promise<Paginated<CustomerGroupMemberResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const manager = this.dataSource.manager;
    await assertExists(manager, id);
    const rows = (await manager.query(
      'SELECT u.id, u.username, u.email FROM customer_group_members m JOIN users u ON u.id = m.user_id ' +
        'WHERE m.customer_group_id = ? AND u.deleted_at IS NULL ORDER BY u.id LIMIT ? OFFSET ?',
      [id, pageSize, skip],
    )) as Array<{ id: number | string; username: string; email: string }>;
    const total = await countMembers(manager, [id]);
    return new Paginated(
      rows.map((row) => ({ id: Number(row.id), username: row.username, email: row.email })),
      total.get(id) ?? 0,
      page,
      pageSize,
    );
  }

  /** Adds the accounts (those already in stay, once); 400 naming `user_ids` when one is no account. */
  async addMembers(id: number, userIds: number[]): Promise<CustomerGroupResponseDto> {
    return this.changeMembers(id, userIds, 'add customer group members', async (tx, wanted) => {
      const present = new Set(
        (
          (await tx.query(
            `SELECT user_id FROM customer_group_members WHERE customer_group_id = ? AND user_id IN (${placeholders(wanted)})`,
            [id, ...wanted],
          )) as Array<{ user_id: number | string }>
        ).map((row) => Number(row.user_id)),
      );
      const added = wanted.filter((userId) => !present.has(userId));
      if (added.length === 0) return;
      await tx.query(
        `INSERT INTO customer_group_members (customer_group_id, user_id) VALUES ${added.map(() => '(?, ?)').join(', ')}`,
        added.flatMap((userId) => [id, userId]),
      );
    });
  }

  /** Removes the accounts (those not in the group are ignored); 400 naming `user_ids` when one is no account. */
  async removeMembers(id: number, userIds: number[]): Promise<CustomerGroupResponseDto> {
    return this.changeMembers(id, userIds, 'remove customer group members', async (tx, wanted) => {
      await tx.query(
        `DELETE FROM customer_group_members WHERE customer_group_id = ? AND user_id IN (${placeholders(wanted)})`,
        [id, ...wanted],
      );
    });
  }

  /**
   * A membership change in one transaction, the group's row locked by touching it (concurrent changes of one
   * group apply one after the other, so an add never meets its own duplicate).
   */
  private async changeMembers(
    id: number,
    userIds: number[],
    name: string,
    change: (tx: Tx, wanted: number[]) => Promise<void>,
  ): Promise<CustomerGroupResponseDto> {
    const wanted = [...new Set(userIds)];
    return this.transactions.run(name, async (tx) => {
      const touched = await tx.update(CustomerGroup, { id }, { updatedAt: new Date() });
      if (touched.affected === 0) throw notFound(id);
      const unknown = await missingUsers(tx, wanted);
      if (unknown.length > 0) {
        throw fieldError('user_ids', 'exists', `user_ids names no account: ${unknown.join(', ')}`);
      }
      await change(tx, wanted);
      return this.read(tx, id);
    });
  }

  private async read(manager: EntityManager, id: number): Promise<CustomerGroupResponseDto> {
    const group = await manager.findOneBy(CustomerGroup, { id });
    if (group === null) throw notFound(id);
    return (await withCounts(manager, [group]))[0];
  }
}

const notFound = (id: number) => new NotFoundException(`Customer group ${id} not found`);

async function assertExists(manager: EntityManager, id: number): Promise<void> {
  if (!(await manager.existsBy(CustomerGroup, { id }))) throw notFound(id);
}

/** The ids among `ids` that name no account, or a deleted one. */
async function missingUsers(manager: EntityManager, ids: number[]): Promise<number[]> {
  const rows = (await manager.query(
    `SELECT id FROM users WHERE deleted_at IS NULL AND id IN (${placeholders(ids)})`,
    ids,
  )) as Array<{ id: number | string }>;
  const found = new Set(rows.map((row) => Number(row.id)));
  return ids.filter((id) => !found.has(id));
}

async function countMembers(manager: EntityManager, groupIds: number[]): Promise<Map<number, number>> {
  if (groupIds.length === 0) return new Map();
  const rows = (await manager.query(
    'SELECT m.customer_group_id, COUNT(*) AS n FROM customer_group_members m JOIN users u ON u.id = m.user_id ' +
      `WHERE u.deleted_at IS NULL AND m.customer_group_id IN (${placeholders(groupIds)}) GROUP BY m.customer_group_id`,
    groupIds,
  )) as Array<{ customer_group_id: number | string; n: number | string }>;
  return new Map(rows.map((row) => [Number(row.customer_group_id), Number(row.n)]));
}

async function withCounts(
  manager: EntityManager,
  groups: CustomerGroup[],
): Promise<CustomerGroupResponseDto[]> {
  const counts = await countMembers(
    manager,
    groups.map((group) => group.id),
  );
  return groups.map((group) => ({
    id: group.id,
    name: group.name,
    customer_count: counts.get(group.id) ?? 0,
    created_at: dateFromRow(group.createdAt).toISOString(),
    updated_at: dateFromRow(group.updatedAt).toISOString(),
  }));
}
