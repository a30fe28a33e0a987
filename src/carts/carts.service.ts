import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, IsNull, Not, type Repository } from 'typeorm';
import { AddressBook } from '../addresses/address-book.js';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { type FieldError, fieldError, ValidationFailedException } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { changedRows, insertEntity } from '../database/raw-query.js';
import { dateFromRow, sqlDatetime } from '../database/timestamps.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { JobQueue } from '../jobs/job-queue.js';
import { queueMail } from '../mail/mail-jobs.js';
import { pageWindow, PageQueryDto } from '../common/pagination.js';
import { UserAccounts } from '../users/user-accounts.js';
import { MAX_QUANTITY, type OrderDetailResponseDto } from '../orders/dto/order.dto.js';
import { type CartOrder, draftOrderToken, OrderHistory } from '../orders/order-history.js';
import type { CartGiftCardDto } from '../gift-cards/dto/gift-card.dto.js';
import { GiftCardLedger } from '../gift-cards/gift-card-ledger.js';
import { joinLiveProduct } from '../products/product-catalog.js';
import type { ShippingOptionResponseDto } from '../shipping-options/dto/shipping-option.dto.js';
import { ShippingOptionCatalog } from '../shipping-options/shipping-option-catalog.js';
import { fromMinor, toMinor } from '../pricing/calculator.js';
import { unitPriceIn } from '../pricing/currency-prices.js';
import { DocumentPricing, type PricedQuote } from '../pricing/document-pricing.js';
import { type ListedPrice, type PriceKey, PriceListPrices } from '../price-lists/price-list-prices.js';
import {
  adjustmentResponse,
  cartDiscountsResponse,
  documentTotals,
  taxLineResponse,
} from '../pricing/dto/priced.dto.js';
import { PromotionPricing } from '../promotions/promotion-pricing.js';
import { RegionDirectory, type RegionInfo } from '../regions/region-directory.js';
import { taxAddressOf } from '../taxes/tax-provider.js';
import { Cart, CartItem } from './cart.entity.js';
import {
  AddCartItemDto,
  type CartItemResponseDto,
  type CartProblemDto,
  type CartResponseDto,
  CheckoutDto,
  CompleteDraftDto,
  CreateCartDto,
  CreateDraftCartDto,
  type DraftCartResponseDto,
  type DraftCartSummaryDto,
  type CreatedCartResponseDto,
  MAX_CART_LINES,
  UpdateCartDto,
  UpdateCartItemDto,
} from './dto/cart.dto.js';

/** Who calls: the bearer token's user (if any) and the X-Cart-Token header (if any). */
export interface CartCaller {
  user: AuthUser | undefined;
  token: string | undefined;
}

export interface CheckedOut {
  order: OrderDetailResponseDto;
  replayed: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const product = joinLiveProduct('ci.product_id', 'ci.variant_id');
/** A cart's lines with their products' (or variants') live price and stock: one statement per cart. */
const LINES_OF_CART =
  `SELECT ci.id, ci.product_id AS line_product_id, ci.variant_id, ci.quantity, ci.added_price_cents, ` +
  `${product.columns} FROM cart_items ci ${product.join} WHERE ci.cart_id = ? ORDER BY ci.id`;
const liveProduct = joinLiveProduct('?', '?');
/** One product's or variant's live state, for a line being added (binds the variant id, then the product id). */
const LIVE_PRODUCT = `SELECT ${liveProduct.columns}, lv.product_id AS variant_product_id FROM (SELECT 1 AS one) x ${liveProduct.join}`;
/** Marks the open cart changed; the row lock it takes orders the cart's concurrent writes one after the other. */
/** A line raised by an add: its new quantity at today's price. */
const RAISE_LINE = 'UPDATE cart_items SET quantity = ?, added_price_cents = ?, updated_at = ? WHERE id = ?';
const TOUCH_OPEN_CART = "UPDATE carts SET updated_at = ? WHERE id = ? AND status = 'open'";
const COMPLETE_CART =
  "UPDATE carts SET status = 'completed', updated_at = ? WHERE id = ? AND status = 'open'";

interface LiveRow {
  product_id: number | string | null;
  variant_product_id?: number | string | null;
  product_name: string | null;
  sku: string | null;
  variant_title: string | null;
  price_cents: number | string | null;
  prices: string | null;
  tax_class: string | null;
  stock: number | string | null;
  for_sale: number | string;
}

interface LineRow extends LiveRow {
  id: number | string;
  line_product_id: number | string;
  variant_id: number | string | null;
  quantity: number | string;
  added_price_cents: number | string;
  product_name: string | null;
  price_cents: number | string | null;
  stock: number | string | null;
  for_sale: number | string;
}

interface Line {
  id: number;
  productId: number;
  variantId: number | null;
  sku: string | null;
  variantTitle: string | null;
  quantity: number;
  /** The unit price when added, in minor units of the cart's currency then. */
  addedPriceCents: number;
  name: string | null;
  /** The default currency's live price; `prices` the others' (JSON). */
  priceCents: number | null;
  prices: string | null;
  taxClass: string;
  available: number;
  forSale: boolean;
}

/**
 * A cart priced in its region: each line's live unit price in the currency with the price lists applied and its
 * own price before them (null: none), and the calculation.
 */
interface PricedCart {
  region: RegionInfo;
  unitPrices: Map<number, ListedPrice | null>;
  quote: PricedQuote;
}

@Injectable()
export class CartsService {
  constructor(
    @InjectRepository(Cart) private readonly carts: Repository<Cart>,
    private readonly transactions: TransactionRunner,
    private readonly orders: OrderHistory,
    private readonly addresses: AddressBook,
    private readonly shipping: ShippingOptionCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly regions: RegionDirectory,
    private readonly pricing: DocumentPricing,
    private readonly priceLists: PriceListPrices,
    private readonly giftCards: GiftCardLedger,
    private readonly promotions: PromotionPricing,
    private readonly users: UserAccounts,
    private readonly jobs: JobQueue,
  ) {
    this.defaultCurrency = config.payments.currency;
  }

  private readonly defaultCurrency: string;

  /** A new cart: the customer's when a bearer token came, otherwise anonymous with a token shown once. */
  async create(user: AuthUser | undefined, dto: CreateCartDto): Promise<CreatedCartResponseDto> {
    const now = new Date();
    const token = user === undefined ? randomBytes(32).toString('base64url') : null;
    const region = await this.regionNamed(this.carts.manager, dto.region_id);
    const cart = await this.transactions.run('create cart', async (tx) => {
      const created = tx.create(Cart, {
        id: randomUUID(),
        userId: user?.id ?? null,
        tokenHash: token === null ? null : sha256(token),
        status: 'open',
        email: null,
        shippingAddress: null,
        shippingOptionId: null,
        regionId: dto.region_id ?? null,
        draftByUserId: null,
        createdAt: now,
        updatedAt: now,
      });
      await tx.insert(Cart, created);
      return created;
    });
    const priced = await this.priceCart(this.carts.manager, cart, [], null, region);
    return {
      ...toCartResponse(cart, [], null, priced, []),
      ...(token === null ? {} : { cart_token: token }),
    };
  }

  async get(id: string, caller: CartCaller): Promise<CartResponseDto> {
    const manager = this.carts.manager;
    return this.read(manager, await this.findAccessible(manager, id, caller));
  }

  /** The customer's open cart (the most recently changed one), or 404. */
  async openCartOf(user: AuthUser): Promise<CartResponseDto> {
    const manager = this.carts.manager;
    const cart = await newestOpenCartOf(manager, user.id);
    if (cart === null) throw new NotFoundException('No open cart');
    return this.read(manager, cart);
  }

  async addItem(id: string, dto: AddCartItemDto, caller: CartCaller): Promise<CartResponseDto> {
    return this.change(id, caller, async (tx, lines, cart) => {
      if (dto.product_id === undefined && dto.variant_id === undefined) {
        throw fieldError('product_id', 'required', 'product_id or variant_id is required');
      }
      const [live]: LiveRow[] = await tx.query(LIVE_PRODUCT, [
        dto.variant_id ?? null,
        dto.product_id ?? null,
      ]);
      const what = dto.variant_id === undefined ? `product ${dto.product_id}` : `variant ${dto.variant_id}`;
      const field = dto.variant_id === undefined ? 'product_id' : 'variant_id';
      if (dto.variant_id !== undefined && live.variant_product_id == null) {
        throw fieldError('variant_id', 'forSale', `${what} does not exist or is not for sale`);
      }
      if (
        dto.product_id !== undefined &&
        live.product_id !== null &&
        Number(live.product_id) !== dto.product_id
      ) {
        throw fieldError(
          'product_id',
          'matchesVariant',
          `variant ${dto.variant_id} is not of product ${dto.product_id}`,
        );
      }
      if (live.product_id === null || Number(live.for_sale) !== 1) {
        // A product sold in variants is for sale only through one of them.
        throw fieldError(
          field,
          'forSale',
          `${what} does not exist or is not for sale (a product with variants is added by variant_id)`,
        );
      }
      const productId = Number(live.product_id);
      const variantId = dto.variant_id ?? null;
      const { currencyCode } = await this.regionOf(tx, cart);
      const key = { productId, variantId: dto.variant_id ?? null };
      const lists = await this.priceLists.pricesFor(tx, {
        currency: currencyCode,
        customerId: cart.userId,
        at: new Date(),
        keys: [key],
      });
      // The price as added: the cart's currency's, a price list's when one applies (0 when it has none there:
      // the line shows no_price).
      const addedPriceCents =
        lists.of(key, unitPriceIn(currencyCode, this.defaultCurrency, Number(live.price_cents), live.prices))
          ?.price ?? 0;
      const existing = lines.find((line) => line.productId === productId && line.variantId === variantId);
      const quantity = (existing?.quantity ?? 0) + dto.quantity;
      assertQuantity('quantity', quantity, Number(live.stock));
      if (existing === undefined) {
        if (lines.length >= MAX_CART_LINES) {
          throw fieldError('product_id', 'maxLines', `a cart holds at most ${MAX_CART_LINES} lines`);
        }
        const now = new Date();
        await insertEntity(tx, CartItem, {
          cartId: id,
          productId,
          variantId,
          quantity,
          addedPriceCents,
          createdAt: now,
          updatedAt: now,
        });
      } else {
        // Raising a line shows the shopper today's price: that becomes the line's price as added.
        await changedRows(tx, RAISE_LINE, [quantity, addedPriceCents, sqlDatetime(new Date()), existing.id]);
      }
    });
  }

  async updateItem(
    id: string,
    itemId: number,
    dto: UpdateCartItemDto,
    caller: CartCaller,
  ): Promise<CartResponseDto> {
    return this.change(id, caller, async (tx, lines) => {
      const line = lines.find((candidate) => candidate.id === itemId);
      if (line === undefined) throw new NotFoundException(`Cart item ${itemId} not found`);
      if (dto.quantity > line.quantity) assertQuantity('quantity', dto.quantity, line.available);
      await tx.update(CartItem, { id: itemId }, { quantity: dto.quantity, updatedAt: new Date() });
    });
  }

  async removeItem(id: string, itemId: number, caller: CartCaller): Promise<CartResponseDto> {
    return this.change(id, caller, async (tx, lines) => {
      if (!lines.some((line) => line.id === itemId)) {
        throw new NotFoundException(`Cart item ${itemId} not found`);
      }
      await tx.delete(CartItem, { id: itemId });
    });
  }

  async update(id: string, dto: UpdateCartDto, caller: CartCaller): Promise<CartResponseDto> {
    const given = [
      'email',
      'shipping_address',
      'shipping_address_id',
      'shipping_option_id',
      'region_id',
    ] as const;
    if (given.every((field) => dto[field] === undefined)) {
      throw fieldError('email', 'required', `one of ${given.join(', ')} is required`);
    }
    if (dto.shipping_address !== undefined && dto.shipping_address_id !== undefined) {
      throw fieldError(
        'shipping_address_id',
        'exclusive',
        'give shipping_address or shipping_address_id, not both',
      );
    }
    return this.change(id, caller, async (tx, lines, cart) => {
      const changes: Partial<Cart> = { updatedAt: new Date() };
      const region =
        dto.region_id === undefined
          ? await this.regionOf(tx, cart)
          : await this.regionNamed(tx, dto.region_id);
      if (dto.region_id !== undefined && dto.region_id !== cart.regionId) {
        changes.regionId = dto.region_id;
        // Moving re-prices the cart: the lines' prices as added become the new currency's.
        const prices = await this.listedPrices(tx, cart, region.currencyCode, lines, (line) =>
          line.priceCents === null
            ? null
            : unitPriceIn(region.currencyCode, this.defaultCurrency, line.priceCents, line.prices),
        );
        for (const line of lines) {
          await tx.update(
            CartItem,
            { id: line.id },
            { addedPriceCents: prices.get(line.id)?.price ?? 0, updatedAt: changes.updatedAt },
          );
        }
      }
      if (dto.email !== undefined) changes.email = dto.email;
      if (dto.shipping_address !== undefined) {
        // Kept as the address book keeps one: optional fields not given are "".
        changes.shippingAddress = {
          line2: '',
          region: '',
          postal_code: '',
          phone: '',
          ...dto.shipping_address,
        };
      }
      if (dto.shipping_address_id !== undefined) {
        const saved =
          cart.userId === null
            ? null
            : await this.addresses.findOwn(tx, cart.userId, dto.shipping_address_id);
        if (saved === null) {
          throw fieldError(
            'shipping_address_id',
            'exists',
            `address ${dto.shipping_address_id} is not in your address book`,
          );
        }
        const { name, line1, line2, city, region, postal_code, country, phone } = saved;
        changes.shippingAddress = { name, line1, line2, city, region, postal_code, country, phone };
      }
      const country = (changes.shippingAddress ?? cart.shippingAddress)?.country;
      if (country !== undefined) {
        const serving = await this.regions.serving(tx, country);
        if (serving.id !== region.id) {
          throw fieldError(
            'shipping_address.country',
            'notInRegion',
            `${country} is not in region ${region.name}: it is served by region ${serving.name} (id ${serving.id}); move the cart there with region_id`,
          );
        }
      }
      const optionId = dto.shipping_option_id === undefined ? cart.shippingOptionId : dto.shipping_option_id;
      if (optionId !== null) {
        const found =
          country === undefined ? null : await this.shipping.findApplicable(tx, optionId, country);
        const option = found !== null && shippingIn(found, region.currencyCode) !== null ? found : null;
        if (option === null && dto.shipping_option_id !== undefined) {
          throw fieldError(
            'shipping_option_id',
            'applies',
            country === undefined
              ? 'set shipping_address before shipping_option_id'
              : found === null
                ? `shipping option ${optionId} does not ship to ${country}`
                : `shipping option ${optionId} has no price in ${region.currencyCode.toUpperCase()}`,
          );
        }
        // A new address the chosen option does not ship to drops the option.
        changes.shippingOptionId = option === null ? null : optionId;
      }
      await tx.update(Cart, { id }, changes);
    });
  }

  /**
   * Puts a discount code on the cart (any case), in the cart's change transaction: the cart priced with it must
   * apply it, else a 400 on `code` naming the rule and the cart is left as it was.
   */
  async addDiscountCode(id: string, code: string, caller: CartCaller): Promise<CartResponseDto> {
    return this.change(id, caller, async (tx, lines, cart) => {
      const promotionId = await this.promotions.hold(tx, id, code);
      const region = await this.regionOf(tx, cart);
      const priced = await this.priceCart(tx, cart, lines, await this.shippingOf(tx, cart, region), region);
      this.promotions.assertApplies(priced.quote.document, promotionId);
    });
  }

  async removeDiscountCode(id: string, code: string, caller: CartCaller): Promise<CartResponseDto> {
    return this.change(id, caller, (tx) => this.promotions.drop(tx, id, code));
  }

  /** The active shipping options that ship to the cart's address (400 without an address). */
  async shippingOptions(id: string, caller: CartCaller): Promise<Paginated<ShippingOptionResponseDto>> {
    const cart = await this.findAccessible(this.carts.manager, id, caller);
    if (cart.shippingAddress === null) {
      throw fieldError('shipping_address', 'required', 'set shipping_address with PUT /carts/{id} first');
    }
    const { currencyCode } = await this.regionOf(this.carts.manager, cart);
    const options = (await this.shipping.applicableTo(cart.shippingAddress.country)).filter(
      (option) => shippingIn(option, currencyCode) !== null,
    );
    // Every option on one page: a shop has few.
    return new Paginated(options, options.length, 1, Math.max(1, options.length));
  }

  /**
   * A customer takes an anonymous cart they hold the token of. With an open cart of their own, the lines move
   * into it (quantities added, at most 1000 a line) and the anonymous cart is deleted; otherwise the cart
   * becomes theirs and its token stops working. One transaction.
   */
  async claim(id: string, user: AuthUser, token: string | undefined): Promise<CartResponseDto> {
    const targetId = await this.transactions.run('claim cart', async (tx) => {
      const cart = await this.findAccessible(tx, id, { user: undefined, token });
      if (cart.status !== 'open') throw fieldError('', 'open', 'Only an open cart can be claimed');
      const mine = await newestOpenCartOf(tx, user.id);
      const now = new Date();
      if (mine === null) {
        await tx.update(Cart, { id }, { userId: user.id, tokenHash: null, updatedAt: now });
        return id;
      }
      // Both carts' rows locked in id order, so two claims crossing each other cannot deadlock.
      for (const locked of [id, mine.id].sort())
        await changedRows(tx, TOUCH_OPEN_CART, [sqlDatetime(now), locked]);
      const into = await linesOf(tx, mine.id);
      // Lines moved from a cart of another region take the customer's cart's currency as their price as added.
      const { currencyCode } = await this.regionOf(tx, mine);
      const sameCurrency = (await this.regionOf(tx, cart)).currencyCode === currencyCode;
      const moving = await linesOf(tx, id);
      const prices = sameCurrency
        ? null
        : await this.listedPrices(tx, mine, currencyCode, moving, (line) =>
            unitPriceOf(line, currencyCode, this.defaultCurrency),
          );
      for (const line of moving) {
        const existing = into.find(
          (candidate) => candidate.productId === line.productId && candidate.variantId === line.variantId,
        );
        if (existing === undefined) {
          if (into.length >= MAX_CART_LINES) break;
          const added = prices === null ? line.addedPriceCents : (prices.get(line.id)?.price ?? 0);
          await tx.update(
            CartItem,
            { id: line.id },
            { cartId: mine.id, addedPriceCents: added, updatedAt: now },
          );
          into.push(line);
        } else {
          await tx.update(
            CartItem,
            { id: existing.id },
            { quantity: Math.min(MAX_QUANTITY, existing.quantity + line.quantity), updatedAt: now },
          );
        }
      }
      await tx.update(
        Cart,
        { id: mine.id },
        {
          email: mine.email ?? cart.email,
          shippingAddress: mine.shippingAddress ?? cart.shippingAddress,
          shippingOptionId: mine.shippingAddress === null ? cart.shippingOptionId : mine.shippingOptionId,
          updatedAt: now,
        },
      );
      await this.giftCards.moveCartCards(tx, id, mine.id);
      await this.promotions.moveCodes(tx, id, mine.id);
      await tx.delete(CartItem, { cartId: id });
      await tx.delete(Cart, { id });
      return mine.id;
    });
    return this.get(targetId, { user, token: undefined });
  }

  /** Applies a gift card by its code (400 on `code` naming why it cannot pay this cart); answers the cart. */
  async applyGiftCard(id: string, code: string, caller: CartCaller): Promise<CartResponseDto> {
    return this.change(id, caller, async (tx, _lines, cart) => {
      const { currencyCode } = await this.regionOf(tx, cart);
      await this.giftCards.applyToCart(tx, id, code, currencyCode);
    });
  }

  /** Takes a gift card off the cart (404 when it is not on it); answers the cart. */
  async removeGiftCard(id: string, giftCardId: number, caller: CartCaller): Promise<CartResponseDto> {
    return this.change(id, caller, (tx) => this.giftCards.removeFromCart(tx, id, giftCardId));
  }

  /**
   * Places the cart's order through the orders module's no-oversell placing, in the transaction that marks the
   * cart completed (a conditional update: of concurrent checkouts one places the order, the others wait on the
   * cart's row and then replay it). A completed cart replays its order (`replayed`). A draft is staff's: they
   * complete it with completeDraft.
   */
  async checkout(id: string, dto: CheckoutDto, caller: CartCaller): Promise<CheckedOut> {
    const cart = await this.findAccessible(this.carts.manager, id, caller);
    if (cart.draftByUserId !== null) {
      throw fieldError(
        '',
        'draft',
        `Cart ${id} is a draft order: complete it with POST /admin/carts/${id}/complete`,
      );
    }
    const orderToken = cart.userId === null ? orderTokenOf(caller.token!, id) : null;
    if (cart.status === 'open') {
      const placed = await this.placeOrder(cart, {
        paymentMethod: dto.payment_method,
        email: dto.email ?? null,
        orderToken,
        placedByUserId: null,
      });
      if (placed !== null) return { order: placed, replayed: false };
    }
    const order = await this.orders.placedFromCart(id);
    if (order === null) throw new NotFoundException(`Cart ${id} not found`);
    return { order: orderToken === null ? order : { ...order, order_token: orderToken }, replayed: true };
  }

  /** Staff start a draft order for a registered customer (`user_id`) or a guest's e-mail address. */
  async createDraft(dto: CreateDraftCartDto, staff: AuthUser): Promise<DraftCartResponseDto> {
    if ((dto.user_id === undefined) === (dto.email === undefined)) {
      throw dto.user_id === undefined
        ? fieldError('user_id', 'required', 'user_id or email is required')
        : fieldError('user_id', 'exclusive', 'give user_id or email, not both');
    }
    if (dto.user_id !== undefined && (await this.users.findActive(dto.user_id)) === null) {
      throw fieldError('user_id', 'exists', `user ${dto.user_id} does not exist or is not active`);
    }
    await this.regionNamed(this.carts.manager, dto.region_id);
    const now = new Date();
    const id = randomUUID();
    await this.transactions.run('create draft cart', (tx) =>
      tx.insert(Cart, {
        id,
        userId: dto.user_id ?? null,
        tokenHash: null,
        status: 'open',
        email: dto.email ?? null,
        shippingAddress: null,
        shippingOptionId: null,
        regionId: dto.region_id ?? null,
        draftByUserId: staff.id,
        createdAt: now,
        updatedAt: now,
      }),
    );
    return this.getDraft(id, staff);
  }

  /** A draft cart as staff see it (404 for a cart that is not a draft). */
  async getDraft(id: string, staff: AuthUser): Promise<DraftCartResponseDto> {
    const manager = this.carts.manager;
    const cart = await this.findDraft(manager, id, staff);
    return {
      ...(await this.read(manager, cart)),
      user_id: cart.userId,
      draft_by_user_id: cart.draftByUserId!,
    };
  }

  /** The open drafts, most recently changed first, with how many lines each holds (two statements). */
  async listDrafts(query: PageQueryDto): Promise<Paginated<DraftCartSummaryDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [carts, total] = await this.carts.findAndCount({
      where: { draftByUserId: Not(IsNull()), status: 'open' },
      order: { updatedAt: 'DESC', id: 'ASC' },
      skip,
      take: pageSize,
    });
    const counts: Array<{ cart_id: string; line_count: number | string }> =
      carts.length === 0
        ? []
        : await this.carts.query(
            `SELECT cart_id, COUNT(*) AS line_count FROM cart_items WHERE cart_id IN (${carts.map(() => '?').join(', ')}) GROUP BY cart_id`,
            carts.map((cart) => cart.id),
          );
    const linesOfCart = new Map(counts.map((row) => [row.cart_id, Number(row.line_count)]));
    return new Paginated(
      carts.map((cart) => ({
        id: cart.id,
        user_id: cart.userId,
        email: cart.email,
        region_id: cart.regionId,
        draft_by_user_id: cart.draftByUserId!,
        line_count: linesOfCart.get(cart.id) ?? 0,
        created_at: cart.createdAt.toISOString(),
        updated_at: cart.updatedAt.toISOString(),
      })),
      total,
      page,
      pageSize,
    );
  }

  /**
   * Places a draft's order for its customer through the checkout's placing, with an order token (also for a
   * registered customer: the payment link works without signing in) and `placed_by` the staff member. Then
   * either e-mails the customer the payment link, or (`mark_paid`) marks the order paid by hand in the placing
   * transaction. A completed draft replays its order (`replayed`) and sends nothing.
   */
  /**
   * Discards an open draft with its lines, discount codes and gift cards (nothing was taken from them), under the
   * cart's row lock as every change of it. A draft already placed is 400: its order stays.
   */
  async deleteDraft(id: string, staff: AuthUser): Promise<void> {
    await this.transactions.run('delete draft', async (tx) => {
      await this.findDraft(tx, id, staff);
      if ((await changedRows(tx, TOUCH_OPEN_CART, [sqlDatetime(new Date()), id])) === 0) {
        throw fieldError('id', 'open', `Draft ${id} was placed as an order: it cannot be deleted`);
      }
      for (const statement of DELETE_DRAFT) await tx.query(statement, [id]);
    });
  }

  async completeDraft(id: string, dto: CompleteDraftDto, staff: AuthUser): Promise<CheckedOut> {
    const cart = await this.findDraft(this.carts.manager, id, staff);
    if (cart.status === 'open') {
      const markPaid = dto.mark_paid === true;
      const placed = await this.placeOrder(
        cart,
        {
          paymentMethod: dto.payment_method ?? this.config.paymentMethods[0],
          email: null,
          orderToken: draftOrderToken(this.config.jwt.secret, id),
          placedByUserId: staff.id,
        },
        async (tx, order) => {
          if (markPaid && order.payment_status !== 'paid')
            await this.orders.markPaidByHand(tx, order.id, staff.id);
        },
      );
      if (placed !== null) {
        if (!markPaid && placed.payment_status !== 'paid') {
          const to = placed.email ?? (await this.users.findActive(cart.userId!))?.email;
          if (to !== undefined) {
            await queueMail(
              this.jobs,
              this.config,
              {
                kind: 'draft-order-payment',
                to,
                cartId: id,
                orderId: placed.id,
                orderNumber: placed.order_number,
                currency: placed.currency_code,
                amountDue: placed.amount_due,
              },
              { jobId: `draft-order:${id}` },
            );
          }
        }
        return { order: (await this.orders.placedFromCart(id))!, replayed: false };
      }
    }
    const order = await this.orders.placedFromCart(id);
    if (order === null) throw new NotFoundException(`Cart ${id} not found`);
    return { order, replayed: true };
  }

  /**
   * The placing of a cart's order, in the transaction that completes the cart (`then` runs in it after the
   * order is placed); null when the cart was completed meanwhile.
   */
  private async placeOrder(
    cart: Cart,
    how: Pick<CartOrder, 'paymentMethod' | 'email' | 'orderToken' | 'placedByUserId'>,
    then?: (tx: Tx, order: OrderDetailResponseDto) => Promise<void>,
  ): Promise<OrderDetailResponseDto | null> {
    const id = cart.id;
    // Read before the transaction: the catalogue reads on a connection of its own, which a transaction holding
    // one must not wait for (concurrent checkouts would exhaust the pool).
    const { currencyCode } = await this.regionOf(this.carts.manager, cart);
    const offered =
      cart.shippingAddress !== null &&
      (await this.shipping.applicableTo(cart.shippingAddress.country)).some(
        (option) => shippingIn(option, currencyCode) !== null,
      );
    return this.transactions.run('checkout cart', async (tx) => {
      if ((await changedRows(tx, COMPLETE_CART, [sqlDatetime(new Date()), id])) === 0) return null;
      const current = await tx.findOneByOrFail(Cart, { id });
      const lines = await linesOf(tx, id);
      const email = current.email ?? how.email;
      const missing: FieldError[] = [];
      if (lines.length === 0)
        missing.push({ field: 'items', rule: 'required', message: 'the cart is empty' });
      if (email === null && current.userId === null) {
        missing.push({
          field: 'email',
          rule: 'required',
          message: 'email is required for a guest checkout',
        });
      }
      if (current.shippingAddress === null) {
        missing.push({
          field: 'shipping_address',
          rule: 'required',
          message: 'set shipping_address with PUT /carts/{id} first',
        });
      }
      const region = await this.regionOf(tx, current);
      const option = await this.shippingOf(tx, current, region);
      // Without an option that applies, checkout needs one whenever the address has any (none: free shipping).
      if (current.shippingAddress !== null && option === null && offered) {
        missing.push({
          field: 'shipping_option_id',
          rule: 'required',
          message: 'choose one of GET /carts/{id}/shipping-options with PUT /carts/{id}',
        });
      }
      if (missing.length > 0) throw new ValidationFailedException(missing);
      const short = lines.flatMap((line) => lineRefusal(line, region, this.defaultCurrency));
      if (short.length > 0) throw new ValidationFailedException(short);
      const order = await this.orders.placeFromCart(tx, {
        ...how,
        cartId: id,
        userId: current.userId,
        email,
        // Product id, then variant id: the order the catalogue locks rows in.
        items: lines
          .map((line) => ({
            productId: line.productId,
            variantId: line.variantId,
            quantity: line.quantity,
          }))
          .sort((a, b) => a.productId - b.productId || (a.variantId ?? 0) - (b.variantId ?? 0)),
        shippingAddress: current.shippingAddress!,
        region,
        shipping:
          option === null
            ? null
            : { amount: shippingIn(option, region.currencyCode)!, taxClass: option.tax_class },
      });
      if (then !== undefined) await then(tx, order);
      return order;
    });
  }

  /**
   * Removes carts not changed for CART_TTL (their lines with them): abandoned ones, and completed ones whose
   * order has long been placed. Idempotent deletes, safe when instances run it at once. Returns how many.
   */
  async removeAbandoned(now = new Date()): Promise<number> {
    const before = sqlDatetime(new Date(now.getTime() - this.config.carts.ttlSeconds * 1000));
    return this.transactions.run('remove abandoned carts', async (tx) => {
      await changedRows(
        tx,
        'DELETE FROM cart_items WHERE cart_id IN (SELECT id FROM carts WHERE updated_at < ?)',
        [before],
      );
      await changedRows(
        tx,
        'DELETE FROM cart_gift_cards WHERE cart_id IN (SELECT id FROM carts WHERE updated_at < ?)',
        [before],
      );
      return changedRows(tx, 'DELETE FROM carts WHERE updated_at < ?', [before]);
    });
  }

  /**
   * The cart's shipping option while it is active, ships to the cart's address and has a price in the cart's
   * currency; otherwise null.
   */
  private async shippingOf(
    manager: EntityManager,
    cart: Cart,
    region: RegionInfo,
  ): Promise<ShippingOptionResponseDto | null> {
    if (cart.shippingOptionId === null || cart.shippingAddress === null) return null;
    const option = await this.shipping.findApplicable(
      manager,
      cart.shippingOptionId,
      cart.shippingAddress.country,
    );
    return option === null || shippingIn(option, region.currencyCode) === null ? null : option;
  }

  /** The cart as the API shows it, priced by the calculator. */
  private async read(manager: EntityManager, cart: Cart): Promise<CartResponseDto> {
    const region = await this.regionOf(manager, cart);
    const lines = await linesOf(manager, cart.id);
    const option = await this.shippingOf(manager, cart, region);
    const priced = await this.priceCart(manager, cart, lines, option, region);
    const giftCards = await this.giftCards.ofCart(
      manager,
      cart.id,
      region.currencyCode,
      priced.quote.document.giftCardTotal,
    );
    return toCartResponse(cart, lines, option, priced, giftCards);
  }

  /** Prices the cart's lines that are for sale and priced in its currency, with its shipping. */
  private async priceCart(
    manager: EntityManager,
    cart: Cart,
    lines: Line[],
    option: ShippingOptionResponseDto | null,
    known?: RegionInfo,
  ): Promise<PricedCart> {
    const region = known ?? (await this.regionOf(manager, cart));
    const unitPrices = await this.listedPrices(manager, cart, region.currencyCode, lines, (line) =>
      unitPriceOf(line, region.currencyCode, this.defaultCurrency),
    );
    const quote = await this.pricing.price(manager, {
      region,
      address: cart.shippingAddress === null ? null : taxAddressOf(cart.shippingAddress),
      customerId: cart.userId,
      cartId: cart.id,
      email: cart.email,
      lines: lines.flatMap((line) => {
        const listed = unitPrices.get(line.id)!;
        return listed === null
          ? []
          : [
              {
                id: line.id,
                productId: line.productId,
                price: listed.price,
                quantity: line.quantity,
                taxClass: line.taxClass,
              },
            ];
      }),
      shipping:
        option === null
          ? null
          : { amount: shippingIn(option, region.currencyCode)!, taxClass: option.tax_class },
    });
    return { region, unitPrices, quote };
  }

  /**
   * The lines' unit prices in `currency` with the price lists that apply to the cart's customer now (carts are
   * priced on read: a list that starts or ends changes them), from each line's own price (`base`, null: none).
   * One lookup for the whole cart.
   */
  private async listedPrices(
    manager: EntityManager,
    cart: Cart,
    currency: string,
    lines: Line[],
    base: (line: Line) => number | null,
  ): Promise<Map<number, ListedPrice | null>> {
    const bases = new Map(lines.map((line) => [line.id, base(line)]));
    const priced = lines.filter((line) => bases.get(line.id) !== null);
    const lists = await this.priceLists.pricesFor(manager, {
      currency,
      customerId: cart.userId,
      at: new Date(),
      keys: priced.map(keyOf),
    });
    return new Map(lines.map((line) => [line.id, lists.of(keyOf(line), bases.get(line.id)!)]));
  }

  /** The cart's region; the default region when it has none (or its region was deleted). */
  private async regionOf(manager: EntityManager, cart: Cart): Promise<RegionInfo> {
    return (await this.regions.find(manager, cart.regionId)) ?? (await this.regions.find(manager, null))!;
  }

  /** The region a request names (400 on region_id when there is none), or the default region. */
  private async regionNamed(manager: EntityManager, id: number | undefined): Promise<RegionInfo> {
    const region = await this.regions.find(manager, id ?? null);
    if (region === null) throw fieldError('region_id', 'exists', `region ${id} does not exist`);
    return region;
  }

  /** A change of an open cart in one transaction, its row locked first; answers the cart as changed. */
  private async change(
    id: string,
    caller: CartCaller,
    work: (tx: EntityManager, lines: Line[], cart: Cart) => Promise<void>,
  ): Promise<CartResponseDto> {
    await this.transactions.run('change cart', async (tx) => {
      await this.findAccessible(tx, id, caller);
      if ((await changedRows(tx, TOUCH_OPEN_CART, [sqlDatetime(new Date()), id])) === 0) {
        throw new BadRequestException(`Cart ${id} is completed: start a new cart`);
      }
      // Read again under the row lock just taken: concurrent changes of the cart apply one after the other.
      await work(tx, await linesOf(tx, id), (await cartById(tx, id))!);
    });
    // Access was checked in the transaction; the cart as changed is answered.
    return this.read(this.carts.manager, (await cartById(this.carts.manager, id))!);
  }

  /**
   * The cart when the caller may use it: a customer's cart with their bearer token, an anonymous cart with its
   * X-Cart-Token, a draft (staff's, even when it names the customer) with an admin's bearer token. Anything else
   * (no such cart, a wrong or missing token, someone else's cart, a customer's draft) is 404.
   */
  private async findAccessible(manager: EntityManager, id: string, caller: CartCaller): Promise<Cart> {
    const cart = UUID.test(id) ? await cartById(manager, id) : null;
    const allowed =
      cart !== null &&
      (cart.draftByUserId !== null
        ? caller.user?.role === 'admin'
        : cart.userId === null
          ? caller.token !== undefined && sameHash(cart.tokenHash, sha256(caller.token))
          : caller.user?.id === cart.userId);
    if (!allowed) throw new NotFoundException(`Cart ${id} not found`);
    return cart;
  }

  /** A draft cart for staff; any other cart is 404 here. */
  private async findDraft(manager: EntityManager, id: string, staff: AuthUser): Promise<Cart> {
    const cart = await this.findAccessible(manager, id, { user: staff, token: undefined });
    if (cart.draftByUserId === null) throw new NotFoundException(`Draft cart ${id} not found`);
    return cart;
  }
}

/** A draft's rows, its own last (cart id). */
const DELETE_DRAFT = [
  'DELETE FROM cart_items WHERE cart_id = ?',
  'DELETE FROM cart_gift_cards WHERE cart_id = ?',
  'DELETE FROM cart_discount_codes WHERE cart_id = ?',
  'DELETE FROM carts WHERE id = ?',
];

async function linesOf(manager: EntityManager, cartId: string): Promise<Line[]> {
  const rows: LineRow[] = await manager.query(LINES_OF_CART, [cartId]);
  return rows.map((row) => {
    const forSale = Number(row.for_sale) === 1;
    return {
      id: Number(row.id),
      productId: Number(row.line_product_id),
      variantId: row.variant_id === null ? null : Number(row.variant_id),
      sku: row.sku,
      variantTitle: row.variant_title,
      quantity: Number(row.quantity),
      addedPriceCents: Number(row.added_price_cents),
      name: row.product_name,
      priceCents: row.price_cents === null ? null : Number(row.price_cents),
      prices: row.prices,
      taxClass: row.tax_class ?? 'standard',
      available: forSale ? Number(row.stock) : 0,
      forSale,
    };
  });
}

const CART_BY_ID =
  'SELECT id, user_id, token_hash, status, email, shipping_address, shipping_option_id, region_id, ' +
  'draft_by_user_id, created_at, updated_at FROM carts WHERE id = ?';

interface CartRow {
  id: string;
  user_id: number | string | null;
  token_hash: string | null;
  status: Cart['status'];
  email: string | null;
  shipping_address: string | null;
  shipping_option_id: number | string | null;
  region_id: number | string | null;
  draft_by_user_id: number | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The cart with its token hash, in one fixed statement (the hot path of every cart call). */
async function cartById(manager: EntityManager, id: string): Promise<Cart | null> {
  const [row]: CartRow[] = await manager.query(CART_BY_ID, [id]);
  if (row === undefined) return null;
  const number = (value: number | string | null) => (value === null ? null : Number(value));
  return Object.assign(new Cart(), {
    id: row.id,
    userId: number(row.user_id),
    tokenHash: row.token_hash,
    status: row.status,
    email: row.email,
    shippingAddress:
      row.shipping_address === null ? null : (JSON.parse(row.shipping_address) as Cart['shippingAddress']),
    shippingOptionId: number(row.shipping_option_id),
    regionId: number(row.region_id),
    draftByUserId: number(row.draft_by_user_id),
    createdAt: dateFromRow(row.created_at),
    updatedAt: dateFromRow(row.updated_at),
  });
}

/** The customer's own open cart most recently changed (a draft staff build for them is not theirs yet). */
function newestOpenCartOf(manager: EntityManager, userId: number): Promise<Cart | null> {
  return manager.findOne(Cart, {
    where: { userId, status: 'open', draftByUserId: IsNull() },
    order: { updatedAt: 'DESC', id: 'ASC' },
  });
}

function assertQuantity(field: string, quantity: number, stock: number): void {
  if (quantity > MAX_QUANTITY) {
    throw fieldError(field, 'max', `a line holds at most ${MAX_QUANTITY} units (it would hold ${quantity})`);
  }
  if (quantity > stock) {
    throw fieldError(field, 'stock', `only ${stock} in stock; the line would hold ${quantity}`);
  }
}

function keyOf(line: Line): PriceKey {
  return { productId: line.productId, variantId: line.variantId };
}

/** A line's live unit price in the currency, in minor units; null when not for sale or unpriced there. */
function unitPriceOf(line: Line, currency: string, defaultCurrency: string): number | null {
  return line.forSale ? unitPriceIn(currency, defaultCurrency, line.priceCents!, line.prices) : null;
}

/** A shipping option's price in a currency, in minor units; null when it has none there. */
function shippingIn(option: ShippingOptionResponseDto, currency: string): number | null {
  const price = option.prices.find((entry) => entry.currency_code === currency);
  return price === undefined ? null : toMinor(price.amount, currency);
}

function problemsOf(line: Line, unitPrice: number | null, region: RegionInfo): CartProblemDto[] {
  if (!line.forSale) return [{ code: 'unavailable', message: 'The product is no longer for sale' }];
  const currency = region.currencyCode;
  if (unitPrice === null) {
    return [
      {
        code: 'no_price',
        message: `The product has no price in ${currency.toUpperCase()}, the currency of region ${region.name}`,
      },
    ];
  }
  const problems: CartProblemDto[] = [];
  if (unitPrice !== line.addedPriceCents) {
    problems.push({
      code: 'price_changed',
      message: `The price changed from ${fromMinor(line.addedPriceCents, currency)} to ${fromMinor(unitPrice, currency)}`,
    });
  }
  if (line.available < line.quantity) {
    problems.push({
      code: 'insufficient_stock',
      message: `Only ${line.available} left; the line asks for ${line.quantity}`,
    });
  }
  return problems;
}

/** Why a line cannot be ordered now (product gone, unpriced or short), as the 400 of a checkout names it. */
function lineRefusal(line: Line, region: RegionInfo, defaultCurrency: string): FieldError[] {
  if (!line.forSale) {
    return [
      { field: `items.${line.id}`, rule: 'forSale', message: `product ${line.productId} is not for sale` },
    ];
  }
  if (unitPriceOf(line, region.currencyCode, defaultCurrency) === null) {
    return [
      {
        field: `items.${line.id}`,
        rule: 'noPrice',
        message: `product ${line.productId} has no price in ${region.currencyCode.toUpperCase()}, the currency of region ${region.name}`,
      },
    ];
  }
  if (line.available < line.quantity) {
    return [
      {
        field: `items.${line.id}`,
        rule: 'stock',
        message: `product ${line.productId}: only ${line.available} in stock, the line asks for ${line.quantity}`,
      },
    ];
  }
  return [];
}

const NOT_PRICED = { discount_total: 0, tax_total: 0, total: 0, tax_lines: [], adjustments: [] };

function toLineResponse(line: Line, priced: PricedCart): CartItemResponseDto {
  const currency = priced.region.currencyCode;
  const money = (amount: number) => fromMinor(amount, currency);
  const listed = priced.unitPrices.get(line.id) ?? null;
  const unitPrice = listed?.price ?? null;
  const amounts = priced.quote.document.lines.find((candidate) => candidate.id === line.id);
  return {
    id: line.id,
    product_id: line.productId,
    product_name: line.name,
    variant_id: line.variantId,
    sku: line.sku,
    variant_title: line.variantTitle,
    quantity: line.quantity,
    price: unitPrice === null ? null : money(unitPrice),
    original_price: listed === null ? null : money(listed.originalPrice),
    added_price: money(line.addedPriceCents),
    line_total: amounts === undefined ? 0 : money(amounts.lineTotal),
    ...(amounts === undefined
      ? NOT_PRICED
      : {
          discount_total: money(amounts.discountTotal),
          tax_total: money(amounts.taxTotal),
          total: money(amounts.total),
          tax_lines: amounts.taxLines.map((tax) => taxLineResponse(tax, currency)),
          adjustments: amounts.adjustments.map((adjustment) => adjustmentResponse(adjustment, currency)),
        }),
    available: line.available,
    problems: problemsOf(line, unitPrice, priced.region),
  };
}

function toCartResponse(
  cart: Cart,
  lines: Line[],
  option: ShippingOptionResponseDto | null,
  priced: PricedCart,
  giftCards: CartGiftCardDto[],
): CartResponseDto {
  const { document } = priced.quote;
  const currency = document.currency;
  return {
    id: cart.id,
    status: cart.status,
    items: lines.map((line) => toLineResponse(line, priced)),
    gift_cards: giftCards,
    ...documentTotals(document, priced.region.id),
    shipping_option:
      option === null
        ? null
        : { id: option.id, name: option.name, price: fromMinor(document.shippingTotal, currency) },
    shipping_tax_lines: document.shipping.taxLines.map((tax) => taxLineResponse(tax, currency)),
    shipping_adjustments: document.shipping.adjustments.map((adjustment) =>
      adjustmentResponse(adjustment, currency),
    ),
    discounts: cartDiscountsResponse(document.discounts, currency),
    shipping_address: cart.shippingAddress,
    email: cart.email,
    created_at: cart.createdAt.toISOString(),
    updated_at: cart.updatedAt.toISOString(),
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function sameHash(stored: string | null, computed: string): boolean {
  return (
    stored !== null &&
    stored.length === computed.length &&
    timingSafeEqual(Buffer.from(stored), Buffer.from(computed))
  );
}

/**
 * A guest order's token, derived from the cart's token: a repeated checkout (which must send the cart token)
 * gives the same order_token again, while only its hash is stored.
 */
function orderTokenOf(cartToken: string, cartId: string): string {
  return createHmac('sha256', cartToken).update(`order-token:${cartId}`).digest('base64url');
}
