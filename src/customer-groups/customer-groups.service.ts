import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CustomerGroupDirectory } from './customer-group-directory.js';

/** Customer groups and their members. */
@Injectable()
export class CustomerGroupsService extends CustomerGroupDirectory {
  async groupsOf(manager: EntityManager, userId: number | null): Promise<number[]> {
    if (userId === null) return [];
    const rows = (await manager.query(
      'SELECT customer_group_id FROM customer_group_members WHERE user_id = ? ORDER BY customer_group_id',
      [userId],
    )) as Array<{ customer_group_id: number | string }>;
    return rows.map((row) => Number(row.customer_group_id));
  }

  async missing(manager: EntityManager, ids: readonly number[]): Promise<number[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const rows = (await manager.query(
      `SELECT id FROM customer_groups WHERE id IN (${wanted.map(() => '?').join(', ')})`,
      wanted,
    )) as Array<{ id: number | string }>;
    const found = new Set(rows.map((row) => Number(row.id)));
    return wanted.filter((id) => !found.has(id));
  }
}
