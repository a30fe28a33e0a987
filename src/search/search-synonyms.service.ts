import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { type PageQueryDto, pageWindow } from '../common/pagination.js';
import { codePointLength, type FieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import {
  type CreateSearchSynonymDto,
  type SearchSynonymResponseDto,
  toSearchSynonymResponse,
  type UpdateSearchSynonymDto,
  WORD_MAX_LENGTH,
} from './dto/search-synonym.dto.js';
import { SearchSynonym } from './search-synonym.entity.js';
import { SearchSynonyms } from './search-synonyms.js';
import { singleSearchWord } from '../products/product-words.js';

/**
 * The admins' synonym entries. Each write is one transaction that raises the synonyms' revision first (so writes
 * take turns) and reloads this instance's SearchSynonyms once committed.
 */
@Injectable()
export class SearchSynonymsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
    private readonly synonyms: SearchSynonyms,
  ) {}

  /** Id order, paged. */
  async list(query: PageQueryDto): Promise<Paginated<SearchSynonymResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [rows, total] = await this.dataSource.manager.findAndCount(SearchSynonym, {
      order: { id: 'ASC' },
      skip,
      take: pageSize,
    });
    return new Paginated(rows.map(toSearchSynonymResponse), total, page, pageSize);
  }

  async get(id: number): Promise<SearchSynonymResponseDto> {
    return toSearchSynonymResponse(await findOrFail(this.dataSource.manager, id));
  }

  async create(dto: CreateSearchSynonymDto): Promise<SearchSynonymResponseDto> {
    const oneWayFrom = dto.one_way_from ?? null;
    assertSynonym(dto.words, oneWayFrom);
    return this.transactions.run('create search synonym', async (tx) => {
      await this.synonyms.changed(tx);
      const now = new Date();
      const result = await tx.insert(SearchSynonym, {
        words: dto.words,
        oneWayFrom,
        createdAt: now,
        updatedAt: now,
      });
      return toSearchSynonymResponse(await findOrFail(tx, Number(result.identifiers[0].id)));
    });
  }

  /** Partial; `words` sent replaces the list, `one_way_from: null` makes the entry two-way. */
  async update(id: number, dto: UpdateSearchSynonymDto): Promise<SearchSynonymResponseDto> {
    return this.transactions.run('update search synonym', async (tx) => {
      await this.synonyms.changed(tx);
      const synonym = await findOrFail(tx, id);
      const words = dto.words ?? synonym.words;
      const oneWayFrom = dto.one_way_from === undefined ? synonym.oneWayFrom : dto.one_way_from;
      assertSynonym(words, oneWayFrom);
      await tx.update(SearchSynonym, { id }, { words, oneWayFrom, updatedAt: new Date() });
      return toSearchSynonymResponse(await findOrFail(tx, id));
    });
  }

  async remove(id: number): Promise<void> {
    await this.transactions.run('delete search synonym', async (tx) => {
      await this.synonyms.changed(tx);
      const result = await tx.delete(SearchSynonym, { id });
      if (result.affected === 0) throw notFound(id);
    });
  }
}

const notFound = (id: number) => new NotFoundException(`Search synonym ${id} not found`);

async function findOrFail(manager: EntityManager, id: number): Promise<SearchSynonym> {
  const synonym = await manager.findOneBy(SearchSynonym, { id });
  if (synonym === null) throw notFound(id);
  return synonym;
}

/**
 * The rules of an entry beyond the DTO's (a list of 2 to 20 strings): each word 1 to 64 characters, not blank,
 * one search word (singleSearchWord), distinct once normalized; `one_way_from` one of them once normalized. Every
 * failure in one 400, a word's named `words.<index>`.
 */
function assertSynonym(words: string[], oneWayFrom: string | null): void {
  const errors: FieldError[] = [];
  const fail = (field: string, rule: string, message: string) => errors.push({ field, rule, message });
  const first = new Map<string, number>();
  words.forEach((text, index) => {
    const field = `words.${index}`;
    const length = codePointLength(text);
    if (length === 0)
      return fail(field, 'minLength', `${field} must be longer than or equal to 1 characters`);
    if (length > WORD_MAX_LENGTH) {
      return fail(
        field,
        'maxLength',
        `${field} must be shorter than or equal to ${WORD_MAX_LENGTH} characters`,
      );
    }
    if (text.trim() === '') return fail(field, 'notBlank', `${field} must not be blank`);
    const word = singleSearchWord(text);
    if (word === null) {
      return fail(
        field,
        'singleWord',
        `${field} must be one word (letters, digits and _, with hyphens or apostrophes only between them): ` +
          JSON.stringify(text),
      );
    }
    const earlier = first.get(word);
    if (earlier !== undefined) {
      return fail(
        field,
        'unique',
        `${field} (${JSON.stringify(text)}) is the same word as words.${earlier} ` +
          `(${JSON.stringify(words[earlier])}) once normalized: ${word}`,
      );
    }
    first.set(word, index);
  });
  if (oneWayFrom !== null) {
    const word = singleSearchWord(oneWayFrom);
    if (word === null || !first.has(word)) {
      fail(
        'one_way_from',
        'oneOfWords',
        `one_way_from must be one of the words: ${JSON.stringify(oneWayFrom)} is not`,
      );
    }
  }
  if (errors.length > 0) throw new ValidationFailedException(errors);
}
