import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { timestampColumns } from '../timestamps.js';

/**
 * The admins' search synonyms, and the revision every synonym write raises in its transaction, which each
 * instance polls to reload its copy (src/search/search-synonyms.ts).
 */
export class CreateSearchSynonyms1763804000000 implements MigrationInterface {
  name = 'CreateSearchSynonyms1763804000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'search_synonyms',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          // A JSON array of the words as written.
          { name: 'words', type: 'text' },
          { name: 'one_way_from', type: 'varchar', length: '64', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'search_synonyms_state',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'revision', type: 'bigint', default: 0 },
        ],
      }),
    );
    await queryRunner.query('INSERT INTO search_synonyms_state (id, revision) VALUES (1, 0)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('search_synonyms_state');
    await queryRunner.dropTable('search_synonyms');
  }
}
