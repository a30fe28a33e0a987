import type { Tx } from '../database/transaction-runner.js';

/**
 * What other modules may ask of the categories module (bound to CategoriesService in CategoriesModule).
 * Methods taking a `tx` run inside the caller's transaction and leave commit and rollback to it.
 */
export abstract class CategoryDirectory {
  /**
   * Makes sure category `id` exists before a product names it. An unknown id gets a placeholder category
   * (`Category N`, slug `category-N`, a suffix when that slug is taken) in the caller's transaction, so that it
   * goes with the product's write; two transactions naming the same new id create one. With
   * CATEGORIES_STRICT=true, or above 1000000000, an unknown id is a 400 naming `category_id` instead. A deleted category still
   * exists (its products keep it).
   */
  abstract ensureForProduct(tx: Tx, id: number): Promise<void>;
}

/**
 * A common table expression `category_subtree(id)`: the category given as its one parameter and every
 * category below it that is not deleted. Put it before a statement's SELECT and match
 * `category_id IN (SELECT id FROM category_subtree)`; recursive CTEs run on SQLite, MariaDB 10.2+, MySQL 8.
 */
export const CATEGORY_SUBTREE_CTE =
  'WITH RECURSIVE category_subtree (id) AS (SELECT ? UNION ALL ' +
  'SELECT c.id FROM categories c INNER JOIN category_subtree s ON c.parent_id = s.id WHERE c.deleted_at IS NULL)';
