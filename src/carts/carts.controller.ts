import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthUser, CurrentUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { parseId } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { OptionalAuth } from '../common/public.decorator.js';
import { AuthRateLimit, RateLimiter } from '../common/rate-limit.js';
import { ApplyGiftCardDto } from '../gift-cards/dto/gift-card.dto.js';
import { OrderDetailResponseDto } from '../orders/dto/order.dto.js';
import { ShippingOptionResponseDto } from '../shipping-options/dto/shipping-option.dto.js';
import { CartsService } from './carts.service.js';
import {
  AddCartItemDto,
  CartResponseDto,
  CheckoutDto,
  CreateCartDto,
  CreatedCartResponseDto,
  DiscountCodeDto,
  UpdateCartDto,
  UpdateCartItemDto,
} from './dto/cart.dto.js';

const CART_TOKEN = {
  name: 'X-Cart-Token',
  required: false,
  description: "An anonymous cart's cart_token (a customer's own cart needs only the bearer token)",
};
const CART_ID = { name: 'id', schema: { type: 'string', format: 'uuid' } } as const;
const ITEM_ID = { name: 'itemId', schema: { type: 'integer', minimum: 1 } } as const;
const NOT_FOUND = 'Cart 3f1c8a2e-6d1b-4f7a-9a53-0d2e1b7c4a10 not found';

@ApiTags('carts')
@ApiBearerAuth()
@Controller()
export class CartsController {
  constructor(
    private readonly carts: CartsService,
    private readonly limiter: RateLimiter,
  ) {}

  @Post('carts')
  @OptionalAuth()
  @ApiOperation({
    summary: 'Start a cart (anonymous without a bearer token, else the customer’s)',
    description:
      'An anonymous cart answers its `cart_token` once: every later call on the cart sends it as `X-Cart-Token`. ' +
      'Anonymous creation also counts in its own per-address bucket (THROTTLE_CART_LIMIT). The body is optional: ' +
      '`{region_id}` prices the cart in that region (default: the default region); any other field is 400 rule ' +
      '`whitelistValidation` and no cart is started.',
  })
  @ApiBody({ type: CreateCartDto, required: false })
  @ApiEnvelope(CreatedCartResponseDto, { status: 201 })
  @ApiErrors(400, 401, 429, {
    400: { field: 'user_id', rule: 'whitelistValidation', message: 'property user_id should not exist' },
  })
  async create(
    @CurrentUser() user: AuthUser | undefined,
    @Body() dto: CreateCartDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CreatedCartResponseDto> {
    if (user === undefined) {
      const refusal = await this.limiter.hit('carts', request, response);
      if (refusal !== null) throw refusal;
    }
    return this.carts.create(user, dto);
  }

  @Get('me/cart')
  @ApiOperation({ summary: "The customer's open cart (the most recently changed)" })
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(401, 404, 429, { 404: 'No open cart' })
  myCart(@CurrentUser() user: AuthUser): Promise<CartResponseDto> {
    return this.carts.openCartOf(user);
  }

  @Get('carts/:id')
  @OptionalAuth()
  @ApiOperation({ summary: 'Read a cart: lines with live prices, stock and problems, totals' })
  @ApiParam(CART_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(401, 404, 429, { 404: NOT_FOUND })
  get(
    @Param('id') id: string,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.get(id, { user, token });
  }

  @Put('carts/:id')
  @OptionalAuth()
  @ApiOperation({
    summary: 'Set the e-mail, the shipping address and the shipping option',
    description:
      '`shipping_address` (an object validated like an address book entry) or `shipping_address_id` (from the ' +
      "customer's address book); `shipping_option_id` must ship to the address's country. A new address the " +
      'chosen option does not ship to drops the option.',
  })
  @ApiParam(CART_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(400, 401, 404, 429, {
    400: {
      field: 'shipping_address.country',
      rule: 'isIso31661Alpha2',
      message: 'shipping_address.country must be a valid ISO31661 Alpha2 code',
    },
    404: NOT_FOUND,
  })
  update(
    @Param('id') id: string,
    @Body() dto: UpdateCartDto,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.update(id, dto, { user, token });
  }

  @Get('carts/:id/shipping-options')
  @OptionalAuth()
  @ApiOperation({ summary: "The active shipping options that ship to the cart's address" })
  @ApiParam(CART_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(ShippingOptionResponseDto, { list: true })
  @ApiErrors(400, 401, 404, 429, {
    400: {
      field: 'shipping_address',
      rule: 'required',
      message: 'set shipping_address with PUT /carts/{id} first',
    },
    404: NOT_FOUND,
  })
  shippingOptions(
    @Param('id') id: string,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<Paginated<ShippingOptionResponseDto>> {
    return this.carts.shippingOptions(id, { user, token });
  }

  @Post('carts/:id/items')
  @OptionalAuth()
  @ApiOperation({
    summary: 'Add a product (to its line when it is in the cart already)',
    description: 'The line may hold at most the stock there is now and 1000 units; nothing is reserved.',
  })
  @ApiParam(CART_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto, { status: 201 })
  @ApiErrors(400, 401, 404, 429, {
    400: { field: 'quantity', rule: 'stock', message: 'only 2 in stock; the line would hold 3' },
    404: NOT_FOUND,
  })
  addItem(
    @Param('id') id: string,
    @Body() dto: AddCartItemDto,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.addItem(id, dto, { user, token });
  }

  @Put('carts/:id/items/:itemId')
  @OptionalAuth()
  @ApiOperation({ summary: "Set a line's quantity" })
  @ApiParam(CART_ID)
  @ApiParam(ITEM_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(400, 401, 404, 429, {
    400: { field: 'quantity', rule: 'min', message: 'quantity must not be less than 1' },
    404: 'Cart item 90 not found',
  })
  updateItem(
    @Param('id') id: string,
    @Param('itemId') itemId: string,
    @Body() dto: UpdateCartItemDto,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.updateItem(id, parseId(itemId), dto, { user, token });
  }

  @Delete('carts/:id/items/:itemId')
  @OptionalAuth()
  @ApiOperation({ summary: 'Remove a line' })
  @ApiParam(CART_ID)
  @ApiParam(ITEM_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(400, 401, 404, 429, { 404: 'Cart item 90 not found' })
  removeItem(
    @Param('id') id: string,
    @Param('itemId') itemId: string,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.removeItem(id, parseId(itemId), { user, token });
  }

  @Post('carts/:id/discount-codes')
  @OptionalAuth()
  @ApiOperation({
    summary: 'Put a discount code on the cart (any case)',
    description:
      'Answers the cart priced with it. A code that cannot apply now is a 400 on `code` naming the rule: ' +
      'unknown, inactive, notStarted, expired, minSubtotal, notApplicable, usageLimit, usageLimitPerCustomer, ' +
      'notCombinable. A code already held is answered as it is. Stacking rules: docs/api.md#promotions.',
  })
  @ApiParam(CART_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto, { status: 201 })
  @ApiErrors(400, 401, 404, 429, {
    400: { field: 'code', rule: 'expired', message: 'code SUMMER10 has expired' },
    404: NOT_FOUND,
  })
  addDiscountCode(
    @Param('id') id: string,
    @Body() dto: DiscountCodeDto,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.addDiscountCode(id, dto.code, { user, token });
  }

  @Delete('carts/:id/discount-codes/:code')
  @OptionalAuth()
  @ApiOperation({ summary: 'Take a discount code off the cart (any case)' })
  @ApiParam(CART_ID)
  @ApiParam({ name: 'code', schema: { type: 'string', maxLength: 64 } })
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(401, 404, 429, {
    404: 'Discount code SUMMER10 is not on cart 3f1c8a2e-6d1b-4f7a-9a53-0d2e1b7c4a10',
  })
  removeDiscountCode(
    @Param('id') id: string,
    @Param('code') code: string,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.removeDiscountCode(id, code, { user, token });
  }

  @Post('carts/:id/gift-cards')
  @OptionalAuth()
  @AuthRateLimit()
  @ApiOperation({
    summary: 'Apply a gift card by its code',
    description:
      'The cart then shows it in `gift_cards`, what the cards pay as `gift_card_total`, and `amount_due`, what ' +
      'the payment asks for. A code that cannot pay this cart is 400 on `code` naming the rule: `unknown`, ' +
      '`inactive`, `expired`, `currency` (another currency than the cart’s), `noBalance`. Guessing is limited ' +
      'like login (THROTTLE_AUTH_LIMIT per address, 429 with Retry-After).',
  })
  @ApiParam(CART_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto, { status: 201 })
  @ApiErrors(400, 401, 404, 429, {
    400: { field: 'code', rule: 'unknown', message: 'no gift card has this code' },
    404: NOT_FOUND,
  })
  applyGiftCard(
    @Param('id') id: string,
    @Body() dto: ApplyGiftCardDto,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.applyGiftCard(id, dto.code, { user, token });
  }

  @Delete('carts/:id/gift-cards/:giftCardId')
  @OptionalAuth()
  @ApiOperation({ summary: 'Take a gift card off the cart' })
  @ApiParam(CART_ID)
  @ApiParam({ name: 'giftCardId', schema: { type: 'integer', minimum: 1 } })
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(400, 401, 404, 429, { 404: 'Gift card 4 is not on cart 3f1c8a2e-6d1b-4f7a-9a53-0d2e1b7c4a10' })
  removeGiftCard(
    @Param('id') id: string,
    @Param('giftCardId') giftCardId: string,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.removeGiftCard(id, parseId(giftCardId, 'giftCardId'), { user, token });
  }

  @Post('carts/:id/claim')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Make an anonymous cart the customer’s (merged into their open cart when they have one)',
    description:
      'Needs the bearer token and the cart’s X-Cart-Token. Merging adds the quantities of the same product ' +
      '(at most 1000 a line), moves its gift cards and deletes the anonymous cart; the answer is the cart the lines ' +
      'are in.',
  })
  @ApiParam(CART_ID)
  @ApiHeader({ ...CART_TOKEN, required: true })
  @ApiEnvelope(CartResponseDto)
  @ApiErrors(400, 401, 404, 429, { 404: NOT_FOUND })
  claim(
    @Param('id') id: string,
    @CurrentUser() user: AuthUser,
    @Headers('x-cart-token') token: string | undefined,
  ): Promise<CartResponseDto> {
    return this.carts.claim(id, user, token);
  }

  @Post('carts/:id/checkout')
  @OptionalAuth()
  @ApiOperation({
    summary: 'Place the order of the cart',
    description:
      'Through the no-oversell order placing: 201 with the order (a guest also gets `order_token`); the cart ' +
      'becomes completed in the same transaction. A repeated checkout answers the same order with ' +
      '`Idempotent-Replayed: true`. Lines not for sale or short of stock: 400 naming each (`items.<itemId>`). ' +
      'The gift cards applied pay `gift_card_total` (taken in this transaction); a card that can no longer pay ' +
      'is 400 on `gift_cards` (`inactive`, `expired`, `currency`, `noBalance`, `insufficientBalance`) and ' +
      'nothing is placed. An order with nothing left to pay is `paid` at once.',
  })
  @ApiParam(CART_ID)
  @ApiHeader(CART_TOKEN)
  @ApiEnvelope(OrderDetailResponseDto, { status: 201, headers: ['Idempotent-Replayed'] })
  @ApiErrors(400, 401, 404, 429, {
    400: { field: 'items.90', rule: 'stock', message: 'product 12: only 1 in stock, the line asks for 2' },
    404: NOT_FOUND,
  })
  async checkout(
    @Param('id') id: string,
    @Body() dto: CheckoutDto,
    @CurrentUser() user: AuthUser | undefined,
    @Headers('x-cart-token') token: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrderDetailResponseDto> {
    const { order, replayed } = await this.carts.checkout(id, dto, { user, token });
    if (replayed) response.setHeader('Idempotent-Replayed', 'true');
    return order;
  }
}
