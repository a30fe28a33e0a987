import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { SearchSynonyms } from '../search/search-synonyms.js';
import { MATCH_TIER, type SearchTerm, type TermVariant } from './product-search.js';
import { dictionaryWriteCount } from './product-words.js';
import { WordDictionary } from './word-dictionary.js';

/** How often the dictionary reads the words other instances added (one indexed read of the new rows). */
const REFRESH_MS = 1000;
/** Rows read per statement when loading the dictionary. */
const LOAD_BATCH = 10_000;
/** Search words whose variants are remembered at most; the oldest is forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The catalogue's dictionary (search_words) in memory, loaded at start, and the variants of a search's words
 * resolved from it once per distinct word: its typos and stems (WordDictionary); and the admins' synonyms. New words are read at most a
 * second after another instance wrote them, and at this instance's next search after it wrote them; the
 * remembered variants are forgotten whenever words are added.
 */
@Injectable()
export class SearchDictionary implements OnModuleInit {
  private readonly dictionary: WordDictionary;
  private readonly typos: boolean;
  private lastId = 0;
  private refreshedAt = 0;
  private seenWrites = -1;
  private refreshing: Promise<void> | null = null;
  private readonly remembered = new Map<string, TermVariant[]>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly synonyms: SearchSynonyms,
  ) {
    this.dictionary = new WordDictionary(config.search.language);
    this.typos = config.search.typos;
  }

  async onModuleInit(): Promise<void> {
    await this.refresh();
  }

  /**
   * The terms with their variants: the word itself first, then its typos and stems, then its synonyms (read at
   * every search: a change of the synonyms applies at once).
   */
  async withVariants(terms: SearchTerm[]): Promise<SearchTerm[]> {
    if (Date.now() - this.refreshedAt >= REFRESH_MS || dictionaryWriteCount() !== this.seenWrites) {
      await this.refresh();
    }
    return terms.map((term) => {
      const variants = [...term.variants, ...this.variantsOf(term)];
      for (const word of this.synonyms.synonymsOf(term.word)) {
        if (!variants.some((v) => !v.prefix && v.word === word)) {
          variants.push({ word, prefix: false, tier: MATCH_TIER.synonym });
        }
      }
      return { ...term, variants };
    });
  }

  private variantsOf(term: SearchTerm): TermVariant[] {
    const key = `${term.prefix ? '*' : '='}${term.word}`;
    let variants = this.remembered.get(key);
    if (variants === undefined) {
      variants = this.dictionary.variants(term.word, term.prefix, this.typos);
      this.remembered.set(key, variants);
      if (this.remembered.size > MAX_REMEMBERED) {
        this.remembered.delete(this.remembered.keys().next().value as string);
      }
    }
    return variants;
  }

  /** Reads the words added since the last read; concurrent callers share one read. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.readNewWords().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /**
   * Rows after the last id read: product writes take turns on the catalogue's row (writeProductWords), so ids
   * commit in order and none is passed over.
   */
  private async readNewWords(): Promise<void> {
    const writes = dictionaryWriteCount();
    const startedAt = Date.now();
    const added: string[] = [];
    for (;;) {
      const rows: Array<{ id: number | string; word: string }> = await this.dataSource.query(
        'SELECT id, word FROM search_words WHERE id > ? ORDER BY id LIMIT ?',
        [this.lastId, LOAD_BATCH],
      );
      for (const row of rows) added.push(row.word);
      if (rows.length > 0) this.lastId = Number(rows[rows.length - 1].id);
      if (rows.length < LOAD_BATCH) break;
    }
    if (this.dictionary.add(added)) this.remembered.clear();
    this.refreshedAt = startedAt;
    this.seenWrites = writes;
  }
}
