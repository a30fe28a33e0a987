import type { EntityManager } from 'typeorm';

/** What other modules may ask of the customer-groups module (bound to CustomerGroupsService). */
export abstract class CustomerGroupDirectory {
  /** The ids of the groups an account belongs to, ascending; [] for a guest (null). One indexed read. */
  abstract groupsOf(manager: EntityManager, userId: number | null): Promise<number[]>;

  /** Each account's group ids, ascending (every id of `userIds` a key): one statement for a page of users. */
  abstract groupsOfEach(manager: EntityManager, userIds: readonly number[]): Promise<Map<number, number[]>>;

  /** The ids among `ids` that name no group (for 400s on fields that list groups). */
  abstract missing(manager: EntityManager, ids: readonly number[]): Promise<number[]>;
}

/**
 * For another module's single-statement read limited to customer groups: true when the account bound to the
 * fragment's `?` is a member of the group in `groupIdColumn` (by the members' primary key).
 */
export function isMemberOf(groupIdColumn: string): string {
  return `EXISTS (SELECT 1 FROM customer_group_members cgm WHERE cgm.customer_group_id = ${groupIdColumn} AND cgm.user_id = ?)`;
}
