import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { isMemberOf } from '../customer-groups/customer-group-directory.js';
import { sqlDatetime } from '../database/timestamps.js';
import { type ListEntry, ListPrices, type PriceListQuery, PriceListPrices } from './price-list-prices.js';

const placeholders = (values: readonly unknown[]) => values.map(() => '?').join(', ');

interface EntryRow {
  price_list_id: number | string;
  type: ListEntry['type'];
  product_id: number | string | null;
  variant_id: number | string | null;
  amount_minor: number | string;
}

/**
 * Reads the applicable lists' prices of a document's lines: one statement, by the prices' indexes, the
 * customer's memberships checked in it.
 */
@Injectable()
export class PriceListLookup extends PriceListPrices {
  async pricesFor(manager: EntityManager, query: PriceListQuery): Promise<ListPrices> {
    if (query.keys.length === 0) return new ListPrices([]);
    const productIds = [...new Set(query.keys.map((key) => key.productId))];
    const variantIds = [
      ...new Set(query.keys.flatMap((key) => (key.variantId === null ? [] : [key.variantId]))),
    ];
    const at = sqlDatetime(query.at);
    // One index lookup per kind of price (products by IDX_price_list_prices_product, variants by
    // IDX_price_list_prices_variant), joined to their lists by primary key.
    const columns = 'price_list_id, product_id, variant_id, amount_minor FROM price_list_prices';
    const prices = [
      `SELECT ${columns} WHERE product_id IN (${placeholders(productIds)}) AND currency_code = ? AND variant_id IS NULL`,
      ...(variantIds.length === 0
        ? []
        : [`SELECT ${columns} WHERE variant_id IN (${placeholders(variantIds)}) AND currency_code = ?`]),
    ];
    // A list without groups is for everyone; one with groups for their members.
    const forShopper =
      'NOT EXISTS (SELECT 1 FROM price_list_customer_groups g WHERE g.price_list_id = l.id)' +
      (query.customerId === null
        ? ''
        : ' OR EXISTS (SELECT 1 FROM price_list_customer_groups g WHERE g.price_list_id = l.id ' +
          `AND ${isMemberOf('g.customer_group_id')})`);
    const rows = (await manager.query(
      'SELECT p.price_list_id, l.type, p.product_id, p.variant_id, p.amount_minor ' +
        `FROM (${prices.join(' UNION ALL ')}) p JOIN price_lists l ON l.id = p.price_list_id ` +
        "WHERE l.status = 'active' AND (l.starts_at IS NULL OR l.starts_at <= ?) " +
        `AND (l.ends_at IS NULL OR l.ends_at > ?) AND (${forShopper})`,
      [
        ...productIds,
        query.currency,
        ...(variantIds.length === 0 ? [] : [...variantIds, query.currency]),
        at,
        at,
        ...(query.customerId === null ? [] : [query.customerId]),
      ],
    )) as EntryRow[];
    const id = (value: number | string | null) => (value === null ? null : Number(value));
    return new ListPrices(
      rows.map((row) => ({
        priceListId: Number(row.price_list_id),
        type: row.type,
        productId: id(row.product_id),
        variantId: id(row.variant_id),
        amount: Number(row.amount_minor),
      })),
    );
  }
}
