import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { jsonText } from '../database/json-column.js';
import { Timestamped } from '../database/timestamped.js';

/** A set of words a product search treats as one (src/search/search-synonyms.ts). */
@Entity('search_synonyms')
export class SearchSynonym extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  /** As the admin wrote them (2 to 20), a JSON array; matched as singleSearchWord normalizes them. */
  @Column({ type: 'text', transformer: jsonText<string[]>() })
  words: string[];

  /** Null: two-way. Else one of `words` (once normalized): only a search for it matches the others. */
  @Column({ name: 'one_way_from', type: 'varchar', length: 64, nullable: true })
  oneWayFrom: string | null;
}
