import { Body, Controller, Delete, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { CreateVariantDto, UpdateVariantDto, VariantResponseDto } from './dto/variant.dto.js';
import { ProductVariants } from './product-variants.service.js';

const DERIVED =
  "The product's price becomes the lowest of its active variants' and its stock their sum, in the same " +
  'transaction.';

@ApiTags('products')
@ApiBearerAuth()
@Controller('products/:id/variants')
export class ProductVariantsController {
  constructor(private readonly variants: ProductVariants) {}

  @Post()
  @Roles('admin')
  @ApiOperation({
    summary: 'Add a variant to a product (admin)',
    description:
      '`options` gives one value for every option of the product; no two live variants of a product have the ' +
      'same values; SKUs are unique ignoring case among live variants. `title` defaults to the values joined ' +
      `by " / ". At most 100 live variants per product. ${DERIVED}`,
  })
  @ApiEnvelope(VariantResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'options.Size', rule: 'isIn', message: 'options.Size must be one of: S, M, L' },
    404: 'Product 12 not found',
  })
  create(@IdParam() productId: number, @Body() dto: CreateVariantDto): Promise<VariantResponseDto> {
    return this.variants.create(productId, dto);
  }

  @Put(':variantId')
  @Roles('admin')
  @ApiOperation({
    summary: 'Update a variant (admin)',
    description:
      'Partial: only the fields sent change. New option values without a `title` give the default title again. ' +
      DERIVED,
  })
  @ApiEnvelope(VariantResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'sku', rule: 'unique', message: 'sku is already used by another variant' },
    404: 'Variant 31 of product 12 not found',
  })
  update(
    @IdParam() productId: number,
    @IdParam('variantId') variantId: number,
    @Body() dto: UpdateVariantDto,
  ): Promise<VariantResponseDto> {
    return this.variants.update(productId, variantId, dto);
  }

  @Delete(':variantId')
  @Roles('admin')
  @ApiOperation({
    summary: 'Delete a variant (admin; soft delete, order history keeps its SKU and title)',
    description: `Its SKU and option values become free for another variant. ${DERIVED}`,
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'variantId', rule: 'isInt', message: 'variantId must be an integer number' },
    404: 'Variant 31 of product 12 not found',
  })
  async remove(@IdParam() productId: number, @IdParam('variantId') variantId: number): Promise<void> {
    await this.variants.remove(productId, variantId);
  }
}
