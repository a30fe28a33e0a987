import type { EntityManager } from 'typeorm';

/** What a line is: a product without variants (`variantId` null), or a variant of `productId`. */
export interface PriceKey {
  productId: number;
  variantId: number | null;
}

/** A line's unit price in minor units once the price lists are applied, and the price it had before. */
export interface ListedPrice {
  price: number;
  /** The product's or variant's own price in the currency (the base the lists apply to). */
  originalPrice: number;
  /** The list that gave `price`; null when it is the base. */
  priceListId: number | null;
}

export interface PriceListQuery {
  /** The document's currency (lower-case ISO 4217). */
  currency: string;
  /** The shopper's account (its groups decide which limited lists apply); null for a guest. */
  customerId: number | null;
  /** The moment the lists must be valid at (a list applies from `starts_at`, up to but not at `ends_at`). */
  at: Date;
  keys: readonly PriceKey[];
}

/** One price of an applicable list, as `pricesFor` reads it. */
export interface ListEntry {
  priceListId: number;
  type: 'sale' | 'override';
  productId: number | null;
  variantId: number | null;
  amount: number;
}

/**
 * The applicable lists' prices of a document's lines, and how they give a line's price (DESIGN.md §16):
 * - a list's price for a variant is its price of that variant, else its price of the variant's product;
 * - the overrides replace the base: when several apply, the lowest (then the lowest list id) is the base;
 * - sale prices compete with that base: the lowest wins, a tie keeps the base (then the lowest list id).
 */
export class ListPrices {
  constructor(private readonly entries: readonly ListEntry[]) {}

  /** The line's price given its own price in the currency (`base`); null when it has none there. */
  of(key: PriceKey, base: number | null): ListedPrice | null {
    if (base === null) return null;
    const byList = new Map<number, ListEntry>();
    for (const entry of this.entries) {
      const forVariant = key.variantId !== null && entry.variantId === key.variantId;
      const forProduct = entry.variantId === null && entry.productId === key.productId;
      if (!forVariant && !forProduct) continue;
      const known = byList.get(entry.priceListId);
      // Within one list, the variant's own price beats its product's.
      if (known === undefined || (forVariant && known.variantId === null))
        byList.set(entry.priceListId, entry);
    }
    const lowest = (type: ListEntry['type']) =>
      [...byList.values()]
        .filter((entry) => entry.type === type)
        .sort((a, b) => a.amount - b.amount || a.priceListId - b.priceListId)[0];
    let result: ListedPrice = { price: base, originalPrice: base, priceListId: null };
    const override = lowest('override');
    if (override !== undefined)
      result = { ...result, price: override.amount, priceListId: override.priceListId };
    const sale = lowest('sale');
    if (sale !== undefined && sale.amount < result.price) {
      result = { ...result, price: sale.amount, priceListId: sale.priceListId };
    }
    return result;
  }
}

/** What other modules may ask of the price-lists module (bound in PriceListPricesModule). */
export abstract class PriceListPrices {
  /**
   * The prices of the lists that apply to the shopper at `at` for the keys, in the currency: active, started,
   * not ended, for everyone or for one of the shopper's groups. One statement; none without keys.
   */
  abstract pricesFor(manager: EntityManager, query: PriceListQuery): Promise<ListPrices>;
}
