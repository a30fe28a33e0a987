import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { afterCommit, type Tx } from '../database/transaction-runner.js';
import { singleSearchWord } from '../products/product-words.js';

const REVISION = 'SELECT revision FROM search_synonyms_state WHERE id = 1';
const NEXT_REVISION = 'UPDATE search_synonyms_state SET revision = revision + 1 WHERE id = 1';
const ENTRIES = 'SELECT words, one_way_from FROM search_synonyms ORDER BY id';
const NONE: readonly string[] = [];

/** A synonym entry as the admin wrote it. */
export interface SynonymEntry {
  words: string[];
  /** Null: every word matches the others. Else only a search for this word matches the others. */
  oneWayFrom: string | null;
}

/**
 * Each search word → the other words a search for it also matches, in entry (id) order: for a two-way entry
 * every other word of the entry, for a one-way entry (`oneWayFrom` w) the others for w alone; the union over the
 * entries a word is in. Words are compared as singleSearchWord normalizes them; an entry whose `oneWayFrom` is none of
 * its words gives nothing (the API never stores one).
 */
export function synonymTable(entries: SynonymEntry[]): Map<string, string[]> {
  const table = new Map<string, Set<string>>();
  for (const entry of entries) {
    const words = [...new Set(entry.words.map(singleSearchWord).filter((word) => word !== null))];
    const from = entry.oneWayFrom === null ? null : singleSearchWord(entry.oneWayFrom);
    const sources = entry.oneWayFrom === null ? words : words.filter((word) => word === from);
    for (const source of sources) {
      const others = table.get(source) ?? new Set<string>();
      for (const word of words) if (word !== source) others.add(word);
      table.set(source, others);
    }
  }
  return new Map([...table].map(([word, others]) => [word, [...others]]));
}

/**
 * The admins' search synonyms, answered from memory: every entry is loaded at start. Every write raises
 * `search_synonyms_state.revision` in its transaction (`changed`); the writing instance reloads once the write has
 * committed, before the request answers, and every instance reads the revision every SEARCH_SYNONYMS_POLL_MS and
 * reloads when it moved. So a change applies at once where it was made and within that interval (plus one
 * reload) everywhere else, without re-indexing the catalogue.
 */
@Injectable()
export class SearchSynonyms implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(SearchSynonyms.name);
  private readonly pollMs: number;
  private table = new Map<string, string[]>();
  /** The revision read before the rows of the table; null until the first load. */
  private revision: number | null = null;
  /** Loads run one after another, so the last to finish read the newest rows. */
  private loading: Promise<void> = Promise.resolve();
  private polling: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.pollMs = config.search.synonymsPollMs;
  }

  /**
   * The other words a search for `word` (one of the search's words, as searchQueryWords gives them) should also
   * match; [] when it has none.
   */
  synonymsOf(word: string): readonly string[] {
    return this.table.get(word) ?? NONE;
  }

  /**
   * Records a change of the synonyms in the writing transaction (as its first statement: synonym writes take
   * turns on the revision row); this instance reloads after the commit, before `TransactionRunner.run` resolves.
   */
  async changed(tx: Tx): Promise<void> {
    await tx.query(NEXT_REVISION);
    afterCommit(tx, () =>
      this.reload().catch((error: unknown) =>
        // The revision read stays behind, so the next poll loads again.
        this.logger.warn({ msg: 'Search synonyms not reloaded after a change', error: String(error) }),
      ),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.reload();
    this.schedulePoll();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    await this.loading.catch(() => undefined);
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.polling = this.poll().finally(() => this.schedulePoll());
    }, this.pollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      if ((await this.readRevision()) !== this.revision) await this.reload();
    } catch (error) {
      this.logger.warn({ msg: 'Search synonyms not refreshed', error: String(error) });
    }
  }

  private reload(): Promise<void> {
    this.loading = this.loading.catch(() => undefined).then(() => this.load());
    return this.loading;
  }

  private async load(): Promise<void> {
    // The revision first: a write committed between the two reads raises it again, and the next poll reloads.
    const revision = await this.readRevision();
    const rows: Array<{ words: string; one_way_from: string | null }> = await this.dataSource.query(ENTRIES);
    this.table = synonymTable(
      rows.map((row) => ({ words: JSON.parse(row.words) as string[], oneWayFrom: row.one_way_from })),
    );
    this.revision = revision;
  }

  private async readRevision(): Promise<number> {
    const [{ revision }]: Array<{ revision: number | string }> = await this.dataSource.query(REVISION);
    return Number(revision);
  }
}
