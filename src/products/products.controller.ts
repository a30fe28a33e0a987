import { Body, Controller, Delete, Get, Param, Post, Put, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { CatalogRead } from '../common/public.decorator.js';
import { IdParam, parseId } from '../common/id-param.js';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../common/slug.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import {
  CreateProductDto,
  ProductListMetaDto,
  ProductListQueryDto,
  ProductResponseDto,
  UpdateProductDto,
} from './dto/product.dto.js';
import { MAX_FILTER_OPTIONS, MAX_FILTER_VALUES } from './product-option-values.js';
import { ProductDetailResponseDto } from './dto/variant.dto.js';
import { ProductsService } from './products.service.js';
import { SearchSlotInterceptor } from './search-slots.js';
import { ReadFromReplica } from '../database/replica-reads.js';

/** GET /products/{id}: digits are an id (with the rules of every `:id`), a slug-shaped segment is a slug. */
function idOrSlug(value: string): number | string {
  const slug = value.toLowerCase();
  return slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug) ? slug : parseId(value);
}

@ApiTags('products')
@ApiBearerAuth()
@Controller('products')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @CatalogRead()
  @ReadFromReplica()
  @UseInterceptors(SearchSlotInterceptor)
  @ApiOperation({
    summary: 'List products',
    description:
      'Users see active products only; admins see all and may filter by `is_active`. `search` matches words: ' +
      'every word must match a word of the name, description or variants, the last word as a prefix; then the ' +
      "default order is relevance (ties by id; when every word is common and, of several, one very common, the rarest word's pre-ranked order), " +
      "otherwise id ascending. A search's `meta.total` is exact up to SEARCH_TOTAL_LIMIT (10 000), then that " +
      'limit with `meta.total_exact: false`; a `page` whose offset reaches the limit is empty when every match ' +
      'comes before it, otherwise 400 (rule `searchWindow`); a search statement past SEARCH_TIMEOUT_MS is a 500. `meta.next_cursor` passed back as `cursor` ' +
      'gives the next page in constant time however deep. With CATALOG_PUBLIC=true, callers without a token ' +
      'may read it and see what a user sees. A search has at most 8 words, of which at most 3 shorter than 3 ' +
      'characters (400 naming `search`); searches beyond SEARCH_CONCURRENCY running and SEARCH_QUEUE waiting ' +
      'on this instance are 429 with Retry-After. `slug` gives the product of that slug (or none); `ids` a ' +
      'batch of products in the order asked, on one page, unknown or invisible ids left out. ' +
      '`option[Name]=value` keeps the products whose options have that value (values ignoring case; several ' +
      'values of one option: any of them; several options: all). `facets` adds `meta.facets`, the matching ' +
      'products counted per category, option value or price bucket, each facet leaving its own filter out.',
  })
  @ApiQuery({
    name: 'option',
    required: false,
    style: 'deepObject',
    explode: true,
    schema: {
      type: 'object',
      additionalProperties: {
        oneOf: [
          { type: 'string', minLength: 1, maxLength: 50 },
          {
            type: 'array',
            items: { type: 'string', minLength: 1, maxLength: 50 },
            maxItems: MAX_FILTER_VALUES,
          },
        ],
      },
      maxProperties: MAX_FILTER_OPTIONS,
    },
    example: { Size: ['M', 'L'], Color: 'Red' },
    description:
      '`option[Size]=M`: products with the option Size (its exact name) having the value M (ignoring case, after ' +
      `NFKC); \`option[Size]=M&option[Size]=L\`: either value; several options: all of them. At most ` +
      `${MAX_FILTER_OPTIONS} options of ${MAX_FILTER_VALUES} values, each 1 to 50 characters (400 naming ` +
      '`option[Size]`, rules `maxOptions`, `maxValues`, `optionName`, `optionValue`).',
  })
  @ApiEnvelope(ProductResponseDto, { list: true, meta: ProductListMetaDto })
  @ApiErrors(400, 401, 403, 429, {
    ...{
      400: { field: 'search', rule: 'maxWords', message: 'search must have at most 8 words' },
    },
    403: 'Only an admin may filter by is_active',
  })
  list(
    @Query() query: ProductListQueryDto,
    @CurrentUser() actor: AuthUser | undefined,
  ): Promise<Paginated<ProductResponseDto>> {
    return this.products.list(query, actor);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({
    summary: 'Create a product (admin)',
    description:
      'The slug, when not given, comes from the name (lowercase ASCII, hyphens, `-2`, `-3`… on a collision). ' +
      "`images` are files uploaded through /upload; `image` is the first one's url.",
  })
  @ApiEnvelope(ProductDetailResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'price', rule: 'min', message: 'price must not be less than 0.01' },
  })
  create(@Body() dto: CreateProductDto): Promise<ProductDetailResponseDto> {
    return this.products.create(dto);
  }

  @Get(':id')
  @CatalogRead()
  @ReadFromReplica()
  @ApiOperation({
    summary: 'Read a product by id or slug (an inactive one is 404 for users)',
    description:
      'The path segment is the id, or the slug (ignoring case) when it has a letter. With its `options` and ' +
      '`variants` (users see the active variants only). With CATALOG_PUBLIC=true, callers without a token may ' +
      'read it as a user would.',
  })
  @ApiParam({
    name: 'id',
    description: 'The id, or the slug',
    schema: {
      oneOf: [
        { type: 'integer', minimum: 1 },
        { type: 'string', pattern: SLUG_PATTERN.source },
      ],
    },
    example: 'espresso-cup',
  })
  @ApiQuery({
    name: 'region_id',
    required: false,
    schema: { type: 'integer', minimum: 1, example: 2 },
    description:
      "Adds `calculated_price` in this region's currency to the product and each variant (400 rule `exists` " +
      'for an unknown region)',
  })
  @ApiEnvelope(ProductDetailResponseDto)
  @ApiErrors(400, 401, 404, 429, {
    ...{ 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } },
    404: 'Product 12 not found',
  })
  get(
    @Param('id') key: string,
    @Query('region_id') regionId: string | undefined,
    @CurrentUser() actor: AuthUser | undefined,
  ): Promise<ProductDetailResponseDto> {
    const region = regionId === undefined ? undefined : parseId(regionId, 'region_id');
    return this.products.get(idOrSlug(key), actor, region);
  }

  @Put(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Update a product (admin)',
    description:
      'Partial: only the fields sent change; may also set category_id, image, images, slug, is_active and ' +
      'options. `images` replaces the list and `image` becomes its first url; `image` alone replaces the first ' +
      'image ("" removes it). Renaming keeps the slug. With active variants, `price` and `stock` are theirs: ' +
      'sending either is 400 (rule `derivedFromVariants`).',
  })
  @ApiEnvelope(ProductDetailResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'image',
      rule: 'uploadedFile',
      message: 'image must be the filename of a file uploaded through /upload',
    },
    404: 'Product 12 not found',
  })
  update(@IdParam() id: number, @Body() dto: UpdateProductDto): Promise<ProductDetailResponseDto> {
    return this.products.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @ApiOperation({ summary: 'Delete a product (admin; soft delete, order history keeps it)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    ...{ 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } },
    404: 'Product 12 not found',
  })
  remove(@IdParam() id: number): Promise<void> {
    return this.products.remove(id);
  }
}
