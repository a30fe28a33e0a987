import type { EntityManager } from 'typeorm';

/** What other modules may ask of the customer-groups module (bound to CustomerGroupsService). */
export abstract class CustomerGroupDirectory {
  /** The ids of the groups an account belongs to, ascending; [] for a guest (null). One indexed read. */
  abstract groupsOf(manager: EntityManager, userId: number | null): Promise<number[]>;

  /** The ids among `ids` that name no group (for 400s on fields that list groups). */
  abstract missing(manager: EntityManager, ids: readonly number[]): Promise<number[]>;
}
