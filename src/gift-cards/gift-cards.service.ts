import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomInt } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { type PageQueryDto, pageWindow } from '../common/pagination.js';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { changedRows, placeholders } from '../database/raw-query.js';
import { sqlDatetime } from '../database/timestamps.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { fromMinor, isAmountIn, minorUnits, toMinor } from '../pricing/calculator.js';
import type {
  CartGiftCardDto,
  CreatedGiftCardResponseDto,
  CreateGiftCardDto,
  GiftCardResponseDto,
  UpdateGiftCardDto,
} from './dto/gift-card.dto.js';
import { GiftCardLedger, type OrderGiftCard } from './gift-card-ledger.js';
import { GiftCard } from './gift-card.entity.js';
import {
  allocate,
  cardsOfCart,
  cardState,
  GIVE_BALANCE,
  INSERT_TRANSACTION,
  NET_OF_ORDER,
  refusalOf,
} from './gift-card-statements.js';

/** Letters and digits that cannot be mistaken for one another when read out or typed (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** 16 characters of 31: about 79 bits, from the operating system's random source. */
const CODE_LENGTH = 16;

/** The code as typed: case, spaces and dashes do not matter. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export function codeHash(code: string): string {
  return createHash('sha256').update(normalizeCode(code)).digest('hex');
}

function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * Gift cards: the back office's CRUD and the ledger carts, orders and payments use. A card's code is shown once,
 * when it is made; only its SHA-256 (looked up by) and its last four characters are kept, and it is never logged.
 */
@Injectable()
export class GiftCardsService extends GiftCardLedger {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
  ) {
    super();
  }

  async list(query: PageQueryDto): Promise<Paginated<GiftCardResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [cards, total] = await this.dataSource.manager.findAndCount(GiftCard, {
      order: { id: 'DESC' },
      skip,
      take: pageSize,
    });
    return new Paginated(cards.map(toGiftCardResponse), total, page, pageSize);
  }

  async get(id: number): Promise<GiftCardResponseDto> {
    return toGiftCardResponse(await this.find(this.dataSource.manager, id));
  }

  async create(dto: CreateGiftCardDto): Promise<CreatedGiftCardResponseDto> {
    const balance = toMinor(dto.initial_balance, dto.currency_code);
    if (balance <= 0) throw fieldError('initial_balance', 'min', 'initial_balance must be more than 0');
    const code = newCode();
    const now = new Date();
    const result = await this.dataSource.manager.insert(GiftCard, {
      codeHash: codeHash(code),
      codeLast4: code.slice(-4),
      currencyCode: dto.currency_code,
      initialBalanceMinor: balance,
      balanceMinor: balance,
      expiresAt: dto.expires_at == null ? null : new Date(dto.expires_at),
      isActive: dto.is_active ?? true,
      createdAt: now,
      updatedAt: now,
    });
    const card = await this.find(this.dataSource.manager, Number(result.identifiers[0].id));
    return { ...toGiftCardResponse(card), code };
  }

  async update(id: number, dto: UpdateGiftCardDto): Promise<GiftCardResponseDto> {
    return this.transactions.run('update gift card', async (tx) => {
      const card = await this.find(tx, id);
      const changes: Partial<GiftCard> = { updatedAt: new Date() };
      if (dto.balance !== undefined) {
        if (!isAmountIn(dto.balance, card.currencyCode)) {
          throw fieldError(
            'balance',
            'isAmountIn',
            `balance must be a non-negative amount in ${card.currencyCode.toUpperCase()} (at most ${minorUnits(card.currencyCode)} decimals)`,
          );
        }
        changes.balanceMinor = toMinor(dto.balance, card.currencyCode);
      }
      if (dto.expires_at !== undefined)
        changes.expiresAt = dto.expires_at === null ? null : new Date(dto.expires_at);
      if (dto.is_active !== undefined) changes.isActive = dto.is_active;
      await tx.update(GiftCard, { id }, changes);
      return toGiftCardResponse(await this.find(tx, id));
    });
  }

  /** A card never used is deleted; one an order used stays (its ledger) and is deactivated instead (400). */
  async remove(id: number): Promise<void> {
    await this.transactions.run('delete gift card', async (tx) => {
      await this.find(tx, id);
      const [used] = await tx.query(
        'SELECT 1 AS used FROM gift_card_transactions WHERE gift_card_id = ? LIMIT 1',
        [id],
      );
      if (used !== undefined) {
        throw fieldError(
          'id',
          'used',
          `Gift card ${id} paid an order: deactivate it (is_active false) instead`,
        );
      }
      await tx.query('DELETE FROM cart_gift_cards WHERE gift_card_id = ?', [id]);
      await tx.delete(GiftCard, { id });
    });
  }

  async applyToCart(tx: Tx, cartId: string, code: string, currency: string): Promise<void> {
    const rows = await tx.query(
      'SELECT id, code_last4, currency_code, balance_minor, expires_at, is_active FROM gift_cards WHERE code_hash = ?',
      [codeHash(code)],
    );
    if (rows.length === 0) throw fieldError('code', 'unknown', 'no gift card has this code');
    const card = cardState(rows[0]);
    const refusal = refusalOf(card, currency, new Date());
    if (refusal !== null) throw fieldError('code', refusal.rule, refusal.message);
    const [applied] = await tx.query(
      'SELECT 1 AS applied FROM cart_gift_cards WHERE cart_id = ? AND gift_card_id = ?',
      [cartId, card.id],
    );
    if (applied !== undefined) return;
    const now = sqlDatetime(new Date());
    await tx.query(
      'INSERT INTO cart_gift_cards (cart_id, gift_card_id, created_at, updated_at) VALUES (?, ?, ?, ?)',
      [cartId, card.id, now, now],
    );
  }

  async removeFromCart(tx: Tx, cartId: string, giftCardId: number): Promise<void> {
    const removed = await changedRows(
      tx,
      'DELETE FROM cart_gift_cards WHERE cart_id = ? AND gift_card_id = ?',
      [cartId, giftCardId],
    );
    if (removed === 0) throw new NotFoundException(`Gift card ${giftCardId} is not on cart ${cartId}`);
  }

  async moveCartCards(tx: Tx, fromCartId: string, toCartId: string): Promise<void> {
    await tx.query(
      'UPDATE cart_gift_cards SET cart_id = ? WHERE cart_id = ? AND gift_card_id NOT IN ' +
        '(SELECT gift_card_id FROM (SELECT gift_card_id FROM cart_gift_cards WHERE cart_id = ?) already)',
      [toCartId, fromCartId, toCartId],
    );
    await tx.query('DELETE FROM cart_gift_cards WHERE cart_id = ?', [fromCartId]);
  }

  async ofCart(
    manager: EntityManager,
    cartId: string,
    currency: string,
    giftCardTotal: number,
  ): Promise<CartGiftCardDto[]> {
    const cards = await cardsOfCart(manager, cartId);
    const amounts = allocate(cards, giftCardTotal, currency, new Date());
    return cards.map((card, i) => ({
      id: card.id,
      code_last4: card.codeLast4,
      balance: fromMinor(card.balance, card.currency),
      amount: fromMinor(amounts[i], currency),
    }));
  }

  async ofOrders(manager: EntityManager, orderIds: number[]): Promise<Map<number, OrderGiftCard[]>> {
    const byOrder = new Map<number, OrderGiftCard[]>();
    if (orderIds.length === 0) return byOrder;
    const rows: Array<{
      order_id: number | string;
      id: number | string;
      code_last4: string;
      amount: number | string;
    }> = await manager.query(
      'SELECT t.order_id, g.id, g.code_last4, SUM(t.amount_minor) AS amount FROM gift_card_transactions t ' +
        `INNER JOIN gift_cards g ON g.id = t.gift_card_id WHERE t.order_id IN (${placeholders(orderIds.length)}) ` +
        "AND t.kind = 'debit' GROUP BY t.order_id, g.id, g.code_last4 ORDER BY MIN(t.id)",
      orderIds,
    );
    for (const row of rows) {
      const orderId = Number(row.order_id);
      const cards = byOrder.get(orderId) ?? [];
      cards.push({ id: Number(row.id), codeLast4: row.code_last4, amount: Number(row.amount) });
      byOrder.set(orderId, cards);
    }
    return byOrder;
  }

  async refundToCards(orderId: number, amount: number, refundId: number): Promise<void> {
    await this.transactions.run('refund to gift cards', async (tx) => {
      const [done] = await tx.query(
        'SELECT 1 AS done FROM gift_card_transactions WHERE payment_refund_id = ? LIMIT 1',
        [refundId],
      );
      if (done !== undefined) return;
      const given = await creditBack(tx, orderId, amount, refundId);
      if (given < amount) {
        throw new Error(
          `the order's gift cards gave ${given} less than the refund's ${amount} (minor units)`,
        );
      }
    });
  }

  private async find(manager: EntityManager, id: number): Promise<GiftCard> {
    const card = await manager.findOneBy(GiftCard, { id });
    if (card === null) throw new NotFoundException(`Gift card ${id} not found`);
    return card;
  }
}

/**
 * Credits the order's cards with up to `amount` of what each took and has not got back, the card that paid last
 * first; writes a credit row per card. `amount` null: everything not yet given back. Returns what it credited.
 */
export async function creditBack(
  tx: Tx,
  orderId: number,
  amount: number | null,
  refundId: number | null,
): Promise<number> {
  const nets: Array<{ gift_card_id: number | string; net: number | string }> = await tx.query(NET_OF_ORDER, [
    orderId,
  ]);
  let left = amount ?? Number.MAX_SAFE_INTEGER;
  let given = 0;
  const now = sqlDatetime(new Date());
  for (const row of [...nets].reverse()) {
    const credit = Math.min(Number(row.net), left);
    if (credit <= 0) continue;
    const cardId = Number(row.gift_card_id);
    await tx.query(GIVE_BALANCE, [credit, now, cardId]);
    await tx.query(INSERT_TRANSACTION, [cardId, orderId, 'credit', credit, refundId, now, now]);
    left -= credit;
    given += credit;
  }
  return given;
}

export function toGiftCardResponse(card: GiftCard): GiftCardResponseDto {
  const money = (amount: number) => fromMinor(amount, card.currencyCode);
  return {
    id: card.id,
    code_last4: card.codeLast4,
    initial_balance: money(card.initialBalanceMinor),
    balance: money(card.balanceMinor),
    currency_code: card.currencyCode,
    expires_at: card.expiresAt === null ? null : card.expiresAt.toISOString(),
    is_active: Boolean(card.isActive),
    created_at: card.createdAt.toISOString(),
    updated_at: card.updatedAt.toISOString(),
  };
}
