import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import {
  CreatedGiftCardResponseDto,
  CreateGiftCardDto,
  GiftCardResponseDto,
  UpdateGiftCardDto,
} from './dto/gift-card.dto.js';
import { GiftCardsService } from './gift-cards.service.js';

const NOT_FOUND = 'Gift card 4 not found';
const BAD_ID = { 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } };

@ApiTags('gift-cards')
@ApiBearerAuth()
@Roles('admin')
@Controller('gift-cards')
export class GiftCardsController {
  constructor(private readonly giftCards: GiftCardsService) {}

  @Get()
  @ApiOperation({
    summary: 'List gift cards (admin)',
    description: 'Newest first; codes show their last four characters.',
  })
  @ApiEnvelope(GiftCardResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page_size', rule: 'min', message: 'page_size must not be less than 1' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<GiftCardResponseDto>> {
    return this.giftCards.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a gift card (admin)',
    description:
      'The code (16 random characters) is made by the service and answered here only: only its hash is kept.',
  })
  @ApiEnvelope(CreatedGiftCardResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, {
    400: {
      field: 'initial_balance',
      rule: 'isAmountIn',
      message: 'initial_balance must be a non-negative amount with no more decimals than its currency has',
    },
  })
  create(@Body() dto: CreateGiftCardDto): Promise<CreatedGiftCardResponseDto> {
    return this.giftCards.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a gift card (admin)' })
  @ApiEnvelope(GiftCardResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<GiftCardResponseDto> {
    return this.giftCards.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a gift card (admin)',
    description:
      'Partial: `balance` (set, in the card’s currency), `expires_at` (null: never), `is_active`. The code, the ' +
      'currency and the initial balance stay.',
  })
  @ApiEnvelope(GiftCardResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'balance',
      rule: 'isAmountIn',
      message: 'balance must be a non-negative amount in EUR (at most 2 decimals)',
    },
    404: NOT_FOUND,
  })
  update(@IdParam() id: number, @Body() dto: UpdateGiftCardDto): Promise<GiftCardResponseDto> {
    return this.giftCards.update(id, dto);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a gift card (admin)',
    description:
      'Only a card no order used; one that paid an order is deactivated instead (400 rule `used`).',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'id',
      rule: 'used',
      message: 'Gift card 4 paid an order: deactivate it (is_active false) instead',
    },
    404: NOT_FOUND,
  })
  remove(@IdParam() id: number): Promise<void> {
    return this.giftCards.remove(id);
  }
}
