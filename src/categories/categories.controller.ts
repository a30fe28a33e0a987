import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { CatalogRead } from '../common/public.decorator.js';
import { CategoriesService } from './categories.service.js';
import {
  CategoryListQueryDto,
  CategoryResponseDto,
  CreateCategoryDto,
  UpdateCategoryDto,
} from './dto/category.dto.js';
import { ReadFromReplica } from '../database/replica-reads.js';

@ApiTags('categories')
@ApiBearerAuth()
@Controller('categories')
export class CategoriesController {
  constructor(private readonly categories: CategoriesService) {}

  @Get()
  @CatalogRead()
  @ReadFromReplica()
  @ApiOperation({
    summary: 'List categories',
    description:
      'Ordered by position, then id. `parent_id` lists the children of a category (0: the top-level ones); ' +
      '`slug` finds one by its slug, ignoring case. Users see active categories only, admins all. With ' +
      'CATALOG_PUBLIC=true, callers without a token may read it and see what a user sees.',
  })
  @ApiEnvelope(CategoryResponseDto, { list: true })
  @ApiErrors(400, 401, 429, {
    400: { field: 'parent_id', rule: 'min', message: 'parent_id must not be less than 0' },
  })
  list(
    @Query() query: CategoryListQueryDto,
    @CurrentUser() actor: AuthUser | undefined,
  ): Promise<Paginated<CategoryResponseDto>> {
    return this.categories.list(query, actor);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({
    summary: 'Create a category (admin)',
    description: 'Without `slug`, one is generated from the name (lower case; `-2`, `-3`… when taken).',
  })
  @ApiEnvelope(CategoryResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'slug', rule: 'unique', message: 'slug is already taken by another category' },
  })
  create(@Body() dto: CreateCategoryDto): Promise<CategoryResponseDto> {
    return this.categories.create(dto);
  }

  @Get(':id')
  @CatalogRead()
  @ReadFromReplica()
  @ApiOperation({
    summary: 'Read a category (an inactive one is 404 for users)',
    description: 'With CATALOG_PUBLIC=true, callers without a token may read it as a user would.',
  })
  @ApiEnvelope(CategoryResponseDto)
  @ApiErrors(400, 401, 404, 429, {
    ...{ 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } },
    404: 'Category 12 not found',
  })
  get(@IdParam() id: number, @CurrentUser() actor: AuthUser | undefined): Promise<CategoryResponseDto> {
    return this.categories.get(id, actor);
  }

  @Put(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Update a category (admin)',
    description:
      'Partial: only the fields sent change (the slug stays when the name changes). `parent_id: null` makes ' +
      'it top-level; a parent that is the category itself or one of its subcategories is refused.',
  })
  @ApiEnvelope(CategoryResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'parent_id',
      rule: 'noCycle',
      message: 'parent_id must not be the category itself or one of its subcategories',
    },
    404: 'Category 12 not found',
  })
  update(@IdParam() id: number, @Body() dto: UpdateCategoryDto): Promise<CategoryResponseDto> {
    return this.categories.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Delete a category (admin; soft delete)',
    description:
      'Refused while it has subcategories. Its products keep their category_id and stay listed; its slug ' +
      'may be taken again.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'id',
      rule: 'hasSubcategories',
      message: 'Category 12 has subcategories: move or delete them first',
    },
    404: 'Category 12 not found',
  })
  remove(@IdParam() id: number): Promise<void> {
    return this.categories.remove(id);
  }
}
