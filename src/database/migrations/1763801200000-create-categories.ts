import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { changeTable } from '../table-changes.js';
import { caseInsensitive, timestampColumns } from '../timestamps.js';

/**
 * The categories tree, a placeholder category (`Category N`, slug `category-N`) for every category id the
 * products already use (deleted products included), then products.category_id → categories.id through
 * changeTable: in place on both databases, the FULLTEXT index and the FTS5 triggers of products untouched.
 */
export class CreateCategories1763801200000 implements MigrationInterface {
  name = 'CreateCategories1763801200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'categories',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'slug', type: 'varchar', length: '120' },
          // The slug while the category is live, NULL once deleted: its unique index (case-insensitive on
          // both databases) lets a deleted category's slug be taken again.
          {
            name: 'live_slug',
            type: 'varchar',
            length: '120',
            isNullable: true,
            collation: caseInsensitive(queryRunner),
          },
          { name: 'parent_id', type: 'integer', isNullable: true },
          { name: 'description', type: 'text' },
          { name: 'position', type: 'integer', default: 0 },
          { name: 'is_active', type: 'boolean', default: true },
          ...timestampColumns(queryRunner, { softDelete: true }),
        ],
        foreignKeys: [
          {
            name: 'FK_categories_parent',
            columnNames: ['parent_id'],
            referencedTableName: 'categories',
            referencedColumnNames: ['id'],
          },
        ],
        indices: [
          { name: 'UQ_categories_live_slug', columnNames: ['live_slug'], isUnique: true },
          // Lists: children of a parent (or roots) in position order; the subtree walk by parent_id.
          { name: 'IDX_categories_parent_position', columnNames: ['parent_id', 'position', 'id'] },
        ],
      }),
    );
    const name =
      queryRunner.connection.driver.options.type === 'mysql'
        ? "CONCAT('Category ', category_id)"
        : "'Category ' || category_id";
    const slug =
      queryRunner.connection.driver.options.type === 'mysql'
        ? "CONCAT('category-', category_id)"
        : "'category-' || category_id";
    await queryRunner.query(
      `INSERT INTO categories (id, name, slug, live_slug, parent_id, description, position, is_active) ` +
        `SELECT DISTINCT category_id, ${name}, ${slug}, ${slug}, NULL, '', 0, 1 FROM products`,
    );
    await changeTable(queryRunner, 'products', {
      addForeignKeys: [{ name: 'FK_products_category', column: 'category_id', references: 'categories' }],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'products', { dropForeignKeys: ['FK_products_category'] });
    await queryRunner.dropTable('categories');
  }
}
